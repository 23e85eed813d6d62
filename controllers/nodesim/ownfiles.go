package nodesim

import (
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// A container's own files. What an exec'd command writes outside the
// container's shared volumes lands in the container's writable layer: a
// real runtime keeps it until the container restarts. The kubelet keeps
// those changes in its memory of the container's current run
// (containerLife.execFiles, each At its offset into the run), and the
// run's later execs, its probes and its server (container.Run.Overlay,
// ProgramAt) see them from then on; a new run starts from the image's
// files again. PodExec notes them with the pod's other exec writes and
// queues the pod; its next sync keeps them (keepOwn), so that its probes
// answer from the files as they are now: `mv index.html /tmp/` in an httpd
// container fails its httpGet readiness probe with a 404.

// keepOwn keeps w, a change an exec'd command made to the own files of a
// container of pod, in the step's memory of the container's run, unless
// that run has ended since.
func (s *lifeStep) keepOwn(pod *api.Pod, w volumeWrite) {
	m := s.life.find(pod, w.container)
	if m == nil || !m.started.Equal(w.started) {
		return // the run the command wrote into is over: its layer with it
	}
	m.execFiles = append(slices.Clip(m.execFiles), w.change)
}

// ownFiles are the changes exec'd commands made to the own files of the
// container name in its current run (m, the kubelet's memory of it): those
// a sync kept, then those pending, written since.
func ownFiles(m containerLife, pending []volumeWrite, name string) []container.FileChange {
	files := m.execFiles
	for _, w := range pending {
		if w.volume == "" && w.container == name && w.started.Equal(m.started) {
			files = append(slices.Clip(files), w.change)
		}
	}
	return files
}
