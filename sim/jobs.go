package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// The job controller's invariants.
//
// job-parallelism, checked at every pod a Job's controller creates: the
// Job's active pods (not finished, not being deleted) are no more than its
// parallelism. The job controller's expectations exist for this: a
// controller that trusted a stale cache would create a second batch.
//
// job-complete, checked when quiet: a Job with the Complete condition has
// exactly its completions succeeded and no pod active; a Job with the
// Failed condition has no pod active.

// checkJobCreate checks job-parallelism after pod was created.
func (s *Sim) checkJobCreate(pod *api.Pod) {
	ref := api.GetControllerOf(&pod.Metadata)
	if ref == nil || ref.Kind != "Job" {
		return
	}
	ctx := context.Background()
	obj, err := s.srv.Get(ctx, client.Jobs, pod.Metadata.Namespace, ref.Name, client.GetOptions{})
	if err != nil {
		return
	}
	job := obj.(*api.Job)
	if job.Metadata.UID != ref.UID {
		return
	}
	parallelism := int32(1)
	if job.Spec.Parallelism != nil {
		parallelism = *job.Spec.Parallelism
	}
	active := s.activeJobPods(ctx, job)
	if int32(len(active)) > parallelism {
		s.violate("job-parallelism", fmt.Sprintf("%s has %d active pods %v, parallelism %d", job.Metadata.Name, len(active), active, parallelism),
			"Job "+api.KeyOf(&job.Metadata), "Pod "+api.KeyOf(&pod.Metadata))
	}
}

// activeJobPods returns the names of job's pods that are neither finished
// nor being deleted.
func (s *Sim) activeJobPods(ctx context.Context, job *api.Job) []string {
	l, err := s.srv.List(ctx, client.Pods, job.Metadata.Namespace, client.ListOptions{})
	if err != nil {
		return nil
	}
	var out []string
	for _, o := range l.Items {
		p := o.(*api.Pod)
		ref := api.GetControllerOf(&p.Metadata)
		if ref == nil || ref.UID != job.Metadata.UID || p.Metadata.DeletionTimestamp != nil ||
			p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {
			continue
		}
		out = append(out, p.Metadata.Name)
	}
	return out
}

// checkJobs checks job-complete.
func (s *Sim) checkJobs(ctx context.Context) error {
	l, err := s.srv.List(ctx, client.Jobs, "", client.ListOptions{})
	if err != nil || len(l.Items) == 0 {
		return err
	}
	for _, o := range l.Items {
		job := o.(*api.Job)
		objects := []string{"Job " + api.KeyOf(&job.Metadata)}
		complete, failed := false, false
		for _, c := range job.Status.Conditions {
			complete = complete || (c.Type == api.JobComplete && c.Status == api.ConditionTrue)
			failed = failed || (c.Type == api.JobFailed && c.Status == api.ConditionTrue)
		}
		if !complete && !failed {
			continue
		}
		if active := s.activeJobPods(ctx, job); len(active) > 0 || job.Status.Active != 0 {
			return failedOn(objects, "job-complete", "%s: finished with %d active in its status and pods %v still active",
				job.Metadata.Name, job.Status.Active, active)
		}
		if complete && job.Spec.Completions != nil && job.Status.Succeeded != *job.Spec.Completions {
			return failedOn(objects, "job-complete", "%s: Complete with %d succeeded, completions %d",
				job.Metadata.Name, job.Status.Succeeded, *job.Spec.Completions)
		}
	}
	return nil
}

// jobScenario creates job batch (6 completions, 2 at a time, each pod
// running `sleep 3`) and job flaky (its pods `exit 1`, backoffLimit 2),
// and at 20s job more (4 completions, 4 at a time): at the end batch and
// more are Complete and flaky Failed with BackoffLimitExceeded.
func jobScenario(s *Sim, d time.Duration) {
	s.userAction(0, d, "create job batch (6 completions, 2 at a time) and job flaky (exits 1, backoffLimit 2)", func(ctx context.Context) error {
		return s.createAll(ctx, NewJob("default", "batch", 6, 2, "sleep 3"), NewJob("default", "flaky", 1, 1, "exit 1"))
	})
	s.userAction(20*time.Second, d, "create job more (4 completions, 4 at a time)", func(ctx context.Context) error {
		return s.createAll(ctx, NewJob("default", "more", 4, 4, "sleep 2"))
	})
}

// NewJob returns a Job of completions pods run parallelism at a time,
// each running `sh -c command` once (restartPolicy Never), with a
// backoffLimit of 2.
func NewJob(namespace, name string, completions, parallelism int32, command string) *api.Job {
	return &api.Job{
		TypeMeta: api.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		Metadata: api.ObjectMeta{Namespace: namespace, Name: name},
		Spec: api.JobSpec{
			Completions: &completions, Parallelism: &parallelism, BackoffLimit: ptrTo(int32(2)),
			Template: api.PodTemplateSpec{Spec: api.PodSpec{
				RestartPolicy: api.RestartPolicyNever,
				Containers:    []api.Container{{Name: name, Image: "busybox", Command: []string{"sh", "-c", command}}},
			}},
		},
	}
}
