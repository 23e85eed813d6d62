package apiserver

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// batchKinds returns the batch/v1 kinds: Jobs, run by controllers/job. Their
// columns need the time (DURATION), so kubectl's printer for them is the
// HTTP front's (apiserver/httpapi/table.go).
func batchKinds() []*kind {
	return []*kind{
		typed(&kind{
			gr: apierrors.GroupResource{Group: "batch", Resource: "jobs"}, kind: "Job", apiVersion: "batch/v1", namespaced: true,
			categories: []string{"all"}, uidBeforeDefaults: true,
			newObj: func() api.Object { return &api.Job{} }, resetStatusOnCreate: true,
			status: statusOf(func(o *api.Job) *api.JobStatus { return &o.Status }),
		}, defaultJob, validateJob, validateJobUpdate),
	}
}
