package nodesim

import (
	"path"
	"reflect"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
	"github.com/miniplane/miniplane/controllers/nodesim/podenv"
)

// Writable shared volumes. A container's run is worked out when it starts
// (container.PlanIn), over the files its volumes hold then; the files it
// makes, writes and removes are in its plan (Run.Files), each at its time.
// The kubelet carries those that land in an emptyDir or a hostPath volume
// (podenv.Shared) into the volume when the clock reaches them (carry), at
// each sync of the pod, and wakes for the next one. So a file one
// container writes into an emptyDir is there for another container of the
// pod, or for the same container's next run after a restart, from the
// time it was written; and a file written into a hostPath is in the
// node's files (Controller.hostFiles), which every pod on the node that
// mounts the directory sees from its next sync (showHostPaths). A run
// already started keeps the files it started with, but for what it wrote
// itself: only its exec'd commands (Controller.PodExec) see the volumes as
// they are now.

// carry carries the changes the container's current run made to its files
// until the time until into the pod's shared volumes, and makes the sync
// due when the next is.
func (s *lifeStep) carry(pod *api.Pod, ct *api.Container, m *containerLife, until time.Time) {
	for ; m.carried < len(m.run.Files); m.carried++ {
		ch := m.run.Files[m.carried]
		if at := m.started.Add(ch.At); at.After(until) {
			s.due(at)
			return
		}
		if name, rel, ok := podenv.Shared(pod, ct, ch.Path); ok {
			ch.Path = rel
			s.writeVolume(pod, name, ch)
		}
	}
}

// writeVolume makes change ch (its path in the volume) to the pod's volume
// name, and to the node's files if it is a hostPath.
func (s *lifeStep) writeVolume(pod *api.Pod, name string, ch container.FileChange) {
	vols := s.ownVolumes()
	if root, ok := vols[name]["/"]; ok && root.Tmpfs {
		ch.File.Tmpfs = true
	}
	vols[name] = applied(vols[name], ch)
	if hp := hostPathOf(pod, name); hp != nil {
		ch.Path = path.Join("/", hp.Path, ch.Path)
		s.hostWrites = append(s.hostWrites, ch)
	}
}

// showHostPaths brings the pod's hostPath volumes up to date with the
// node's files, and makes the directories that are not there yet (the
// kubelet's DirectoryOrCreate).
func (s *lifeStep) showHostPaths(pod *api.Pod, f lifeFacts) {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.HostPath == nil {
			continue
		}
		dir := path.Clean("/" + v.HostPath.Path)
		if _, ok := f.HostFiles[dir]; !ok && !madeHere(s.hostWrites, dir) {
			made := container.Dir(0o755)
			if v.HostPath.Type != nil && *v.HostPath.Type == "FileOrCreate" {
				made = container.File{Mode: 0o644}
			}
			s.hostWrites = append(s.hostWrites, container.FileChange{Path: dir, Exists: true, File: made})
		}
		now := podenv.HostPath(f.HostFiles, dir)
		if !reflect.DeepEqual(s.life.vols[v.Name], now) {
			s.ownVolumes()[v.Name] = now
		}
	}
}

// ownVolumes returns the step's volumes, a copy of those of the life it
// was handed, which it may change.
func (s *lifeStep) ownVolumes() map[string]container.FS {
	if !s.ownVols {
		vols := make(map[string]container.FS, len(s.life.vols))
		for k, fs := range s.life.vols {
			vols[k] = fs
		}
		s.life.vols, s.ownVols = vols, true
	}
	return s.life.vols
}

func madeHere(changes []container.FileChange, p string) bool {
	for _, ch := range changes {
		if ch.Path == p {
			return true
		}
	}
	return false
}

// hostPathOf is the hostPath source of the pod's volume name, nil if it
// is not one.
func hostPathOf(pod *api.Pod, name string) *api.HostPathVolumeSource {
	for i := range pod.Spec.Volumes {
		if v := &pod.Spec.Volumes[i]; v.Name == name {
			return v.HostPath
		}
	}
	return nil
}

// applied is fs after ch: a copy, fs being shared. A removed directory
// takes what is under it along.
func applied(fs container.FS, ch container.FileChange) container.FS {
	out := make(container.FS, len(fs)+1)
	for p, f := range fs {
		if !ch.Exists && (p == ch.Path || strings.HasPrefix(p, ch.Path+"/")) {
			continue
		}
		out[p] = f
	}
	if ch.Exists {
		out.Put(ch.Path, ch.File)
	}
	return out
}

// writeHostLocked makes changes (by absolute path) to the files of node
// (at hostIP),
// a copy: the old ones may be in a sync's hands. Its caller holds mu.
func (c *Controller) writeHostLocked(node, hostIP string, changes []container.FileChange) {
	if len(changes) == 0 {
		return
	}
	fs := c.hostFiles[node]
	if fs == nil {
		fs = nodeFiles(node, hostIP)
	}
	for _, ch := range changes {
		fs = applied(fs, ch)
	}
	if c.hostFiles == nil {
		c.hostFiles = map[string]container.FS{}
	}
	c.hostFiles[node] = fs
}

// nodeFiles are a node's files before any pod wrote there: its own
// /etc/hosts (podenv.NodeHostsFile), which a hostPath volume of it shows,
// as the kubelet's KubeletManagedEtcHosts conformance test mounts it.
func nodeFiles(node, hostIP string) container.FS {
	fs := container.FS{"/": container.Dir(0o755)}
	fs.Put("/etc/hosts", container.File{Data: podenv.NodeHostsFile(node, hostIP), Mode: 0o644})
	return fs
}
