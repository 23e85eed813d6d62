package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/miniplane/miniplane/plane"
)

// kubeconfigMarker is the first line of every kubeconfig serve writes: a
// file that starts with it may be overwritten, any other never is (it
// could be the user's own ~/.kube/config).
const kubeconfigMarker = "# Written by miniplane serve; rewritten each time it starts.\n"

// kubeconfig is the content of the kubeconfig file serve writes:
// plane.NewKubeconfig's, after kubeconfigMarker.
func kubeconfig(server string, caPEM []byte, token string) []byte {
	return append([]byte(kubeconfigMarker), plane.NewKubeconfig(server, caPEM, token)...)
}

// writeKubeconfig writes content to path, or, when path is "", to a file in
// a new temporary directory. It returns the path written and a function
// that removes what it created (the temporary directory; a path the user
// chose is left in place). It refuses to overwrite a file serve did not
// write. The file is readable by its owner only: it holds the token.
func writeKubeconfig(path string, content []byte) (string, func(), error) {
	cleanup := func() {}
	if path == "" {
		dir, err := os.MkdirTemp("", "miniplane-")
		if err != nil {
			return "", nil, fmt.Errorf("kubeconfig: %w", err)
		}
		path = filepath.Join(dir, "kubeconfig")
		cleanup = func() { _ = os.RemoveAll(dir) }
	} else if old, err := os.ReadFile(path); err == nil {
		if !bytes.HasPrefix(old, []byte(kubeconfigMarker)) {
			return "", nil, usageError{fmt.Sprintf("--kubeconfig %s: the file exists and serve did not write it; choose another path", path)}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("kubeconfig: %w", err)
	}
	if err := os.WriteFile(path, content, 0o600); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return path, cleanup, nil
}
