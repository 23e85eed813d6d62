package apiserver

import (
	"errors"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/quota"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// quotaCharge is a create admitted by the namespace's quotas, holding
// Server.quotaMu until done: commit adds the object's usage to each quota's
// status.used once the object is stored, so that no other create is
// checked against a used that misses it.
type quotaCharge struct {
	s       *Server
	charges []charge
}

// charge is one quota's share of a create: its key and what the object adds.
type charge struct {
	key   string
	usage api.ResourceList
}

// admitQuota is kube-apiserver's ResourceQuota admission plugin
// (plugin/pkg/admission/resourcequota, the quota evaluator's checkRequest)
// for a create in a namespace, when Config.ResourceQuotas is on. For each
// quota of the namespace that selects the object, in name order, it
// refuses with 403 Forbidden, nothing stored:
//
//	pods "x" is forbidden: failed quota: q: must specify limits.cpu for: app
//	pods "x" is forbidden: status unknown for quota: q, resources: pods
//	pods "x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2
//
// — a pod that leaves unsaid a request or limit the quota caps, a quota
// the resourcequota controller has not yet counted, and a create that takes
// used past hard. Admitted, it returns the charge the create commits once
// the object is stored (kube-apiserver writes the quota's status in the
// same request, so a burst of creates cannot overshoot) and must end with
// done. A namespace without quotas costs one list and no lock.
func (s *Server) admitQuota(k *kind, obj api.Object) (*quotaCharge, error) {
	return s.chargeQuota(k, obj, quota.Usage(k.gr.Group, k.gr.Resource, obj, s.now().Time))
}

// admitQuotaUpdate is admitQuota for an update of old to obj: what it
// charges is what the update grows (a Service turned NodePort adds its
// node ports), and an update that grows nothing is admitted unchecked, as
// kube-apiserver's quota admission does.
func (s *Server) admitQuotaUpdate(k *kind, obj, old api.Object) (*quotaCharge, error) {
	if !s.resourceQuotas || !k.namespaced {
		return nil, nil
	}
	now := s.now().Time
	grown := quota.Grown(quota.Usage(k.gr.Group, k.gr.Resource, obj, now), quota.Usage(k.gr.Group, k.gr.Resource, old, now))
	if len(grown) == 0 {
		return nil, nil
	}
	return s.chargeQuota(k, obj, grown)
}

// chargeQuota checks usage, what obj adds, against the quotas of obj's
// namespace, as admitQuota says.
func (s *Server) chargeQuota(k *kind, obj api.Object, usage api.ResourceList) (*quotaCharge, error) {
	m := obj.GetObjectMeta()
	quotas := s.kinds[client.ResourceQuotas]
	if !s.resourceQuotas || !k.namespaced || m.Namespace == "" {
		return nil, nil
	}
	prefix := quotas.prefix(m.Namespace)
	if res, err := s.store.List(prefix, store.ListOptions{Limit: 1}); err != nil || len(res.Records) == 0 {
		return nil, nil
	}
	s.quotaMu.Lock()
	res, err := s.store.List(prefix, store.ListOptions{})
	if err != nil {
		s.quotaMu.Unlock()
		return nil, apierrors.NewInternalError(err)
	}
	qc := &quotaCharge{s: s}
	for _, r := range res.Records {
		q := r.Value.(*api.ResourceQuota)
		if err := checkQuota(q, obj, usage); err != "" {
			s.quotaMu.Unlock()
			return nil, apierrors.NewForbidden(k.gr, admissionName(m), err)
		}
		if add := quota.Mask(usage, sortedKeys(q.Status.Hard)); len(add) > 0 && quota.Selects(q, obj) {
			qc.charges = append(qc.charges, charge{key: r.Key, usage: add})
		}
	}
	return qc, nil
}

// checkQuota is one quota's verdict on a create that adds usage: "" to
// admit it, else the reason. Kubernetes: checkQuotas.
func checkQuota(q *api.ResourceQuota, obj api.Object, usage api.ResourceList) string {
	if !quota.Selects(q, obj) {
		return ""
	}
	hard := sortedKeys(q.Status.Hard)
	if pod, ok := obj.(*api.Pod); ok {
		if missing := quota.MissingRequests(hard, pod); missing != "" {
			return "failed quota: " + q.Metadata.Name + ": must specify " + missing
		}
	}
	requested := quota.Mask(usage, hard)
	if len(requested) == 0 {
		return ""
	}
	var unknown []string
	for _, name := range sortedKeys(requested) {
		if _, ok := q.Status.Used[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return "status unknown for quota: " + q.Metadata.Name + ", resources: " + strings.Join(sortedKeys(requested), ",")
	}
	exceeded := quota.Exceeded(quota.Add(quota.Mask(q.Status.Used, sortedKeys(requested)), requested), q.Status.Hard)
	if len(exceeded) == 0 {
		return ""
	}
	return "exceeded quota: " + q.Metadata.Name +
		", requested: " + quota.PrettyPrint(quota.Mask(requested, exceeded)) +
		", used: " + quota.PrettyPrint(quota.Mask(q.Status.Used, exceeded)) +
		", limited: " + quota.PrettyPrint(quota.Mask(q.Status.Hard, exceeded))
}

// commit adds each charge to its quota's stored status.used, rereading on
// a conflict with the controller's write. A quota deleted meanwhile is
// skipped.
func (qc *quotaCharge) commit() {
	if qc == nil {
		return
	}
	for _, c := range qc.charges {
		for {
			rec, err := qc.s.store.Get(c.key, 0)
			if err != nil {
				break
			}
			next := rec.Value.(*api.ResourceQuota).DeepCopy()
			next.Status.Used = quota.Add(next.Status.Used, c.usage)
			if _, err := qc.s.store.Update(rec.Key, next, rec.ModRev); !errors.Is(err, store.ErrConflict) {
				break
			}
		}
	}
}

// done releases the lock admitQuota took.
func (qc *quotaCharge) done() {
	if qc != nil {
		qc.s.quotaMu.Unlock()
	}
}
