package replication

// DefaultBurstReplicas is the most pods one sync creates or deletes.
// Kubernetes: replicaset.BurstReplicas.
const DefaultBurstReplicas = 500

// SlowStartInitialBatchSize is the size of the first batch of creates; each
// later batch is twice the one before. Kubernetes:
// controller.SlowStartInitialBatchSize.
const SlowStartInitialBatchSize = 1

// Diff says what a sync should do about the gap between the active pods a
// controller owns and the replicas it wants, at most burst at a time: a
// positive create count, a positive delete count, or neither.
// Kubernetes: the arithmetic at the top of manageReplicas.
func Diff(active int, replicas int32, burst int) (create, del int) {
	d := active - int(replicas)
	switch {
	case d < 0:
		return min(-d, burst), 0
	case d > 0:
		return 0, min(d, burst)
	}
	return 0, 0
}

// SlowStartBatches splits count calls into batches of initial, 2*initial,
// 4*initial, ... with the last one taking what is left. Creating in growing
// batches means a create that is bound to fail (a quota, a bad template)
// fails once rather than count times.
func SlowStartBatches(count, initial int) []int {
	var out []int
	for size := min(count, initial); size > 0; size = min(2*size, count) {
		out = append(out, size)
		count -= size
	}
	return out
}

// SlowStart makes count calls of fn in slow-start batches and returns how
// many succeeded and the first error. Every call of a batch is made even
// after one fails, but a batch with a failure is the last: the calls of
// later batches are never made. The caller treats count minus the
// successes as creations that will never be observed.
//
// Kubernetes runs the calls of a batch concurrently (slowStartBatch in
// pkg/controller/replicaset); miniplane runs them one after another, in
// order, so that a simulated run issues its writes in the same order every
// time. The accounting is the same.
func SlowStart(count, initial int, fn func() error) (successes int, err error) {
	for _, size := range SlowStartBatches(count, initial) {
		var batchErr error
		for range size {
			if e := fn(); e != nil {
				if batchErr == nil {
					batchErr = e
				}
				continue
			}
			successes++
		}
		if batchErr != nil {
			return successes, batchErr
		}
	}
	return successes, nil
}
