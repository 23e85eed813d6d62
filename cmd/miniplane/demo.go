package main

import (
	"fmt"
	"io"
	"strings"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/store"
)

// runDemo tells the story of the versioned store, the piece of the control
// plane that exists today: every line is an operation the store really did.
func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", stderr)
	verbose := fs.Bool("v", false, "log every store operation (structured, to stderr)")
	window := fs.Int("history", 8, "history window of the demo store, in events")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *window < 4 {
		return usageError{fmt.Sprintf("-history must be at least 4, got %d", *window)}
	}
	d := &demo{
		out: stdout,
		log: newLogger(stderr, *verbose).Named("demo"),
		s:   store.New[string](store.Options{HistoryLimit: *window}),
	}
	defer func() { _ = d.log.Sync() }()
	return d.run(*window)
}

type demo struct {
	out io.Writer
	log *zap.Logger
	s   *store.Store[string]
	err error // the first failed step; later steps are skipped
}

func (d *demo) say(format string, a ...any) {
	if d.err == nil {
		fmt.Fprintf(d.out, format+"\n", a...)
	}
}

// must records err as the demo's failure: a step the story relies on broke.
func (d *demo) must(what string, err error) {
	if err != nil && d.err == nil {
		d.err = fmt.Errorf("demo: %s: %w", what, err)
	}
}

const podPrefix = "/registry/pods/default/"

func (d *demo) run(window int) error {
	s := d.s
	d.say("miniplane demo: the versioned store (the narrated control loop is not built into the demo yet)")
	d.say("")
	d.say("The store starts empty at revision %d. Every write moves the revision by exactly one,", s.Rev())
	d.say("and each object keeps the revision of its last write: Kubernetes calls it resourceVersion.")

	w, err := s.Watch(podPrefix, 0)
	d.must("watch", err)
	d.say("A watcher on %s starts now, the way an informer would.", podPrefix)
	d.say("")

	for _, name := range []string{"web-1", "web-2", "web-3"} {
		r, err := s.Create(podPrefix+name, "phase=Pending")
		d.must("create "+name, err)
		d.log.Debug("create", zap.String("key", r.Key), zap.Int64("rev", r.ModRev))
		d.say("  create pod %-6s -> revision %d", name, r.ModRev)
	}
	r, err := s.Update(podPrefix+"web-1", "phase=Running", 2)
	d.must("update web-1", err)
	d.log.Debug("update", zap.String("key", r.Key), zap.Int64("rev", r.ModRev))
	d.say("  update web-1 (expecting resourceVersion 2) -> revision %d, phase=Running", r.ModRev)

	_, err = s.Update(podPrefix+"web-1", "phase=Failed", 2)
	d.say("  update web-1 again, still expecting 2 -> refused: %v", err)
	d.say("    (optimistic concurrency: the writer read an old copy; the API server answers 409 Conflict)")
	if err == nil {
		d.must("stale update", fmt.Errorf("a stale update was accepted"))
	}

	old, err := s.Delete(podPrefix+"web-2", 0)
	d.must("delete web-2", err)
	d.say("  delete web-2 (it was at revision %d) -> revision %d", old.ModRev, s.Rev())
	d.say("")

	evs, progress, err := w.Poll(nil, 0)
	d.must("poll", err)
	d.say("The watcher polls once and receives every event, once, in revision order:")
	for _, ev := range evs {
		d.say("  %-7s %-6s at revision %d", ev.Type, strings.TrimPrefix(ev.Key, podPrefix), ev.Rev)
	}
	d.say("It is now caught up through revision %d; the failed update made no event.", progress)
	d.say("")

	past, err := s.List(podPrefix, store.ListOptions{Rev: 4})
	d.must("list at 4", err)
	d.say("A list at revision 4 still sees the past, without copying the tree:")
	for _, rec := range past.Records {
		d.say("  %-6s %s (resourceVersion %d)", strings.TrimPrefix(rec.Key, podPrefix), rec.Value, rec.ModRev)
	}
	d.say("")

	d.say("History is a window of %d events. Ten more writes push revision 4 out of it:", window)
	for i := range 10 {
		_, err := s.Update(podPrefix+"web-3", fmt.Sprintf("phase=Running restarts=%d", i+1), 0)
		d.must("update web-3", err)
	}
	st := s.Stats()
	d.say("  now at revision %d; the oldest readable revision is %d", st.Rev, st.CompactRev)
	_, err = s.List(podPrefix, store.ListOptions{Rev: 4})
	d.say("  list at revision 4 -> %v", err)
	_, err = s.Watch(podPrefix, 4)
	d.say("  watch from revision 4 -> %v", err)
	d.say("    (the API server answers 410 Gone, and an informer relists: never a silent gap)")
	if err == nil {
		d.must("watch from a compacted revision", fmt.Errorf("it was accepted"))
	}
	d.say("")
	d.say("That is the ground the rest of miniplane stands on; see README.md for what comes next.")
	w.Stop()
	return d.err
}
