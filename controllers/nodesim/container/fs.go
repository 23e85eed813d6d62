package container

import (
	iofs "io/fs"
	"path"
	"slices"
	"strings"
)

// FS is a container's simulated filesystem, by clean absolute path: the
// files of the volumes the kubelet mounted into it (package podenv builds
// it) and the directories that hold them. It holds nothing of the image:
// a path no volume put there does not exist. An FS is shared by the runs
// of a container and never changed once built.
type FS map[string]File

// File is a file or directory of an FS.
type File struct {
	// Data is a file's content.
	Data string
	// Mode is its permission bits, with iofs.ModeDir for a directory.
	Mode iofs.FileMode
	// Tmpfs says the file lives on a tmpfs (a secret or projected volume,
	// an emptyDir of medium Memory), as agnhost's --fs_type reports.
	Tmpfs bool
}

// Dir is a directory entry of mode perm.
func Dir(perm iofs.FileMode) File { return File{Mode: iofs.ModeDir | perm} }

// IsDir reports whether f is a directory.
func (f File) IsDir() bool { return f.Mode.IsDir() }

// Put adds a file at p (made clean and absolute) and the directories
// above it that are not there yet (mode 0755).
func (fs FS) Put(p string, f File) {
	p = path.Clean("/" + p)
	fs[p] = f
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		if _, ok := fs[dir]; ok || dir == "/" {
			break
		}
		fs[dir] = Dir(0o755)
	}
	if _, ok := fs["/"]; !ok {
		fs["/"] = Dir(0o755)
	}
}

// Lookup returns the file at p.
func (fs FS) Lookup(p string) (File, bool) {
	f, ok := fs[path.Clean("/"+p)]
	return f, ok
}

// List returns the names of the entries of directory dir, sorted.
func (fs FS) List(dir string) []string {
	dir = path.Clean("/" + dir)
	var names []string
	for p := range fs {
		if p != "/" && path.Dir(p) == dir {
			names = append(names, path.Base(p))
		}
	}
	slices.Sort(names)
	return names
}

// resolve is p made absolute against the working directory "/".
func resolve(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return path.Clean(p)
}
