package plane

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/patch"
)

// installCRDs creates the definitions of paths in srv, each established
// when its create returns; the first refused is an error naming its file.
func installCRDs(srv *apiserver.Server, paths []string) error {
	crds, err := readCRDs(paths)
	if err != nil {
		return err
	}
	for _, c := range crds {
		if _, err := srv.Create(context.Background(), c.crd); err != nil {
			return fmt.Errorf("%s: %w", c.file, err)
		}
	}
	return nil
}

// fileCRD is a definition and the file it was read from.
type fileCRD struct {
	file string
	crd  *api.CustomResourceDefinition
}

// crdExtensions are the files a directory of definitions is read for, as
// envtest's CRDInstallOptions.Paths reads them.
var crdExtensions = []string{".json", ".yaml", ".yml"}

// ReadCRDs reads the CustomResourceDefinitions in paths, each a file or a
// directory whose .json, .yaml and .yml files are read (not its
// subdirectories), in name order. A file holds one or more YAML documents
// (separated by "---" lines) or JSON objects, each a definition or a List
// of them; a document of another kind is skipped, as envtest skips it. A
// path that does not exist, a file that does not parse and a directory
// with no definition are errors naming the file. Kubernetes:
// sigs.k8s.io/controller-runtime's envtest.ReadCRDFiles.
func ReadCRDs(paths []string) ([]*api.CustomResourceDefinition, error) {
	crds, err := readCRDs(paths)
	if err != nil {
		return nil, err
	}
	out := make([]*api.CustomResourceDefinition, len(crds))
	for i, c := range crds {
		out[i] = c.crd
	}
	return out, nil
}

func readCRDs(paths []string) ([]fileCRD, error) {
	var out []fileCRD
	for _, path := range paths {
		files, err := crdFiles(path)
		if err != nil {
			return nil, err
		}
		n := len(out)
		for _, file := range files {
			crds, err := readCRDFile(file)
			if err != nil {
				return nil, err
			}
			for _, crd := range crds {
				out = append(out, fileCRD{file, crd})
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: no CustomResourceDefinition found", path)
		}
	}
	return out, nil
}

// crdFiles returns path, or the definition files of the directory path.
func crdFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries { // ReadDir sorts by name
		if !e.IsDir() && slices.Contains(crdExtensions, filepath.Ext(e.Name())) {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	return files, nil
}

// readCRDFile returns the definitions of one file.
func readCRDFile(file string) ([]*api.CustomResourceDefinition, error) {
	body, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []*api.CustomResourceDefinition
	for i, doc := range documents(body) {
		crds, err := decodeCRDs(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, i+1, err)
		}
		out = append(out, crds...)
	}
	return out, nil
}

// documents splits a YAML stream at its "---" lines, leaving out the
// documents with nothing but blank lines and comments; JSON is one
// document, or several objects one after the other.
func documents(body []byte) [][]byte {
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '{' {
		var docs [][]byte
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return append(docs, trimmed[dec.InputOffset():]) // decodeCRDs says why
			}
			docs = append(docs, raw)
		}
		return docs
	}
	var docs [][]byte
	var cur []string
	flush := func() {
		for _, line := range cur {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
				docs = append(docs, []byte(strings.Join(cur, "\n")))
				break
			}
		}
		cur = nil
	}
	for _, line := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n") {
		if line == "---" || strings.HasPrefix(line, "--- ") {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return docs
}

// decodeCRDs decodes one document: a definition, a List of them, or
// something else (none).
func decodeCRDs(doc []byte) ([]*api.CustomResourceDefinition, error) {
	js := doc
	if t := bytes.TrimSpace(doc); len(t) == 0 || t[0] != '{' {
		var err error
		if js, _, err = patch.YAMLToJSON(doc); err != nil {
			return nil, err
		}
	}
	var head struct {
		api.TypeMeta
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return nil, err
	}
	switch {
	case head.APIVersion == "apiextensions.k8s.io/v1" && head.Kind == "CustomResourceDefinition":
		var crd api.CustomResourceDefinition
		if err := json.Unmarshal(js, &crd); err != nil {
			return nil, err
		}
		return []*api.CustomResourceDefinition{&crd}, nil
	case head.Kind == "CustomResourceDefinition":
		return nil, fmt.Errorf("no matches for kind \"CustomResourceDefinition\" in version %q", head.APIVersion)
	case head.Kind == "List" || head.Kind == "CustomResourceDefinitionList":
		var out []*api.CustomResourceDefinition
		for _, item := range head.Items {
			crds, err := decodeCRDs(item)
			if err != nil {
				return nil, err
			}
			out = append(out, crds...)
		}
		return out, nil
	}
	return nil, nil
}
