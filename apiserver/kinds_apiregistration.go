package apiserver

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/store"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// apiServicesGR is apiregistration.k8s.io's apiservices resource.
var apiServicesGR = apierrors.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}

// automanagedLabel marks the local APIServices the server keeps in step
// with what it serves: "onstart" for the built-in group versions, "true"
// for those of CustomResourceDefinitions. Kubernetes: the autoregister
// controller's AutoRegisterManagedLabel.
const automanagedLabel = "kube-aggregator.kubernetes.io/automanaged"

// apiServiceKind is apiregistration.k8s.io/v1 APIServices. kube-apiserver's
// aggregator lists one local APIService for each group version it serves
// and keeps them in step (its autoregister and crdregistration
// controllers); the server does the same in syncLocalAPIServices. An
// APIService naming a service is stored and validated, but nothing
// proxies to it (notCalled says so at its creation).
func apiServiceKind() *kind {
	return typed(&kind{
		gr: apiServicesGR, kind: "APIService", apiVersion: "apiregistration.k8s.io/v1",
		categories: []string{"api-extensions"},
		newObj:     func() api.Object { return &api.APIService{} }, resetStatusOnCreate: true,
		status:  statusOf(func(o *api.APIService) *api.APIServiceStatus { return &o.Status }),
		columns: apiServiceColumns,
	}, func(*api.APIService) {}, validateAPIService, validateAPIServiceUpdate)
}

// apiServiceColumns are kubectl's columns of an APIService. Kubernetes:
// printAPIService.
var apiServiceColumns = []Column{nameColumn,
	{Name: "Service", Type: "string", Description: "The reference to the service that hosts this API endpoint.",
		Cell: func(o api.Object) any {
			if s := o.(*api.APIService).Spec.Service; s != nil {
				return s.Namespace + "/" + s.Name
			}
			return "Local"
		}},
	{Name: "Available", Type: "string", Description: "Whether this service is available.",
		Cell: func(o api.Object) any {
			for _, c := range o.(*api.APIService).Status.Conditions {
				if c.Type == "Available" {
					if c.Status == api.ConditionFalse {
						return string(c.Status) + " (" + c.Reason + ")"
					}
					return string(c.Status)
				}
			}
			return "Unknown"
		}},
	ageColumn,
}

// validateAPIService checks an APIService on create: its name is
// version.group (v1 of the core group is "v1."), a version, the
// priorities, and a service or none of the TLS settings. Kubernetes:
// ValidateAPIService (k8s.io/kube-aggregator).
func validateAPIService(a *api.APIService) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &a.Metadata, metaRules{name: apiServiceName}, metadataPath)
	s, p := &a.Spec, pathAt("spec")
	if want := s.Version + "." + s.Group; a.Metadata.Name != "" && a.Metadata.Name != want {
		errs = append(errs, Invalid(metadataPath.child("name").path(), a.Metadata.Name, "must be `spec.version+\".\"+spec.group`: \""+want+"\""))
	}
	if s.Group == "" && s.Version != "v1" {
		errs = append(errs, Required(p.child("group").path(), "only v1 may have an empty group and it better be legacy kube"))
	}
	if s.Group != "" {
		errs = invalidEach(errs, p.child("group"), s.Group, dns1123SubdomainMsgs(s.Group))
	}
	if s.Version == "" {
		errs = append(errs, Required(p.child("version").path(), ""))
	} else {
		errs = validateDNS1123LabelField(errs, s.Version, p.child("version"))
	}
	if s.GroupPriorityMinimum <= 0 || s.GroupPriorityMinimum > 20000 {
		errs = append(errs, Invalid(p.child("groupPriorityMinimum").path(), s.GroupPriorityMinimum, "must be positive and less than 20000"))
	}
	if s.VersionPriority <= 0 || s.VersionPriority > 1000 {
		errs = append(errs, Invalid(p.child("versionPriority").path(), s.VersionPriority, "must be positive and less than 1000"))
	}
	if s.Service == nil {
		if len(s.CABundle) != 0 {
			errs = append(errs, Invalid(p.child("caBundle").path(), fmt.Sprintf("%d bytes", len(s.CABundle)), "local APIServices may not have a caBundle"))
		}
		if s.InsecureSkipTLSVerify {
			errs = append(errs, Invalid(p.child("insecureSkipTLSVerify").path(), s.InsecureSkipTLSVerify, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	if s.Service.Namespace == "" {
		errs = append(errs, Required(p.child("service").child("namespace").path(), ""))
	}
	if s.Service.Name == "" {
		errs = append(errs, Required(p.child("service").child("name").path(), ""))
	}
	if port := s.Service.Port; port != nil && (*port < 1 || *port > 65535) {
		errs = append(errs, Invalid(p.child("service").child("port").path(), *port, "port is not valid: must be between 1 and 65535, inclusive"))
	}
	if s.InsecureSkipTLSVerify && len(s.CABundle) > 0 {
		errs = append(errs, Invalid(p.child("insecureSkipTLSVerify").path(), s.InsecureSkipTLSVerify, "may not be true if caBundle is present"))
	}
	return errs
}

func validateAPIServiceUpdate(a, old *api.APIService) apierrors.FieldErrors {
	errs := validateAPIService(a)
	return validateObjectMetaUpdate(errs, &a.Metadata, &old.Metadata, metadataPath)
}

// apiServiceName: version.group, the group part possibly empty.
// Kubernetes: the name check of ValidateAPIService.
func apiServiceName(name string, prefix bool) []string {
	version, group, ok := strings.Cut(name, ".")
	if !ok {
		return []string{"must be in the form: <version>.<group>"}
	}
	msgs := dns1123LabelMsgs(version)
	if group != "" {
		msgs = append(msgs, dns1123SubdomainMsgs(group)...)
	}
	return msgs
}

// apiServicePriorities are kube-apiserver v1.32's priorities of its group
// versions (group, version). Kubernetes: DefaultAPIServicePriorities and
// DefaultGenericAPIServicePriorities. A custom resource's group version
// gets crdPriority, as the crdregistration controller gives it.
var apiServicePriorities = map[[2]string][2]int32{
	{"", "v1"}: {18000, 1}, {"apps", "v1"}: {17800, 15}, {"events.k8s.io", "v1"}: {17750, 15},
	{"authentication.k8s.io", "v1"}: {17700, 15}, {"authorization.k8s.io", "v1"}: {17600, 15},
	{"autoscaling", "v1"}: {17500, 15}, {"autoscaling", "v2"}: {17500, 30}, {"batch", "v1"}: {17400, 15},
	{"certificates.k8s.io", "v1"}: {17300, 15}, {"networking.k8s.io", "v1"}: {17200, 15}, {"policy", "v1"}: {17100, 15},
	{"rbac.authorization.k8s.io", "v1"}: {17000, 15}, {"storage.k8s.io", "v1"}: {16800, 15},
	{"apiextensions.k8s.io", "v1"}: {16700, 15}, {"admissionregistration.k8s.io", "v1"}: {16700, 15},
	{"scheduling.k8s.io", "v1"}: {16600, 15}, {"coordination.k8s.io", "v1"}: {16500, 15},
	{"node.k8s.io", "v1"}: {16300, 15}, {"discovery.k8s.io", "v1"}: {16200, 15},
	{"flowcontrol.apiserver.k8s.io", "v1"}: {16100, 21},
}

var crdPriority = [2]int32{1000, 100}

// localAPIService is the APIService kube-apiserver keeps for a group
// version it serves itself, Available as every local one is.
func localAPIService(group, version, managed string, priority [2]int32, now api.Time) *api.APIService {
	return &api.APIService{
		Metadata: api.ObjectMeta{Name: version + "." + group, Labels: map[string]string{automanagedLabel: managed}},
		Spec:     api.APIServiceSpec{Group: group, Version: version, GroupPriorityMinimum: priority[0], VersionPriority: priority[1]},
		Status: api.APIServiceStatus{Conditions: []api.APIServiceCondition{{Type: "Available", Status: api.ConditionTrue,
			LastTransitionTime: now, Reason: "Local", Message: "Local APIServices are always available"}}},
	}
}

// syncLocalAPIServices makes the stored local APIServices what the
// server serves: one for each group version of its resources (the
// built-in ones "onstart", the custom ones "true"), and none managed for
// a group version no longer served. Kubernetes: the autoregister and
// crdregistration controllers, and the available controller's Local
// condition.
func (s *Server) syncLocalAPIServices() {
	if !s.localAPIServices {
		return
	}
	want := map[string]*api.APIService{}
	now := s.now()
	for _, r := range s.Resources() {
		name := r.Version + "." + r.Group
		if want[name] != nil {
			continue
		}
		if p, ok := apiServicePriorities[[2]string{r.Group, r.Version}]; ok && r.Schema == nil {
			want[name] = localAPIService(r.Group, r.Version, "onstart", p, now)
		} else if r.Schema != nil || r.JSONOnly {
			want[name] = localAPIService(r.Group, r.Version, "true", crdPriority, now)
		}
	}
	k := s.kinds[apiServicesGR.String()]
	res, err := s.store.List(k.prefix(""), store.ListOptions{})
	if err != nil {
		s.log.Warn("listing APIServices", zap.Error(err))
		return
	}
	for _, rec := range res.Records {
		have := rec.Value.(*api.APIService)
		if want[have.Metadata.Name] == nil && have.Metadata.Labels[automanagedLabel] != "" && have.Spec.Service == nil {
			if _, err := s.Delete(context.Background(), client.APIServices, "", have.Metadata.Name, api.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				s.log.Warn("removing an APIService", zap.String("name", have.Metadata.Name), zap.Error(err))
			}
		}
	}
	for _, name := range sortedKeys(want) {
		s.ensureAPIService(want[name])
	}
}

// ensureAPIService creates a local APIService, or brings the stored one's
// spec and status to it.
func (s *Server) ensureAPIService(a *api.APIService) {
	created, err := s.create(a.DeepCopy(), writeOptions{})
	var cur *api.APIService
	switch {
	case err == nil:
		cur = created.(*api.APIService)
	case apierrors.IsAlreadyExists(err):
		rec, gerr := s.store.Get(s.kinds[apiServicesGR.String()].key("", a.Metadata.Name), 0)
		if gerr != nil {
			return
		}
		cur = rec.Value.(*api.APIService)
	default:
		s.log.Warn("creating an APIService", zap.String("name", a.Metadata.Name), zap.Error(err))
		return
	}
	if cur.Spec.Service != nil {
		return // someone's aggregated API server: theirs, not the server's
	}
	if !reflect.DeepEqual(cur.Spec, a.Spec) {
		next := cur.DeepCopy()
		next.Spec = a.Spec
		if out, err := s.update(next, false, writeOptions{}); err == nil {
			cur = out.(*api.APIService)
		}
	}
	if len(cur.Status.Conditions) == 1 && cur.Status.Conditions[0].Reason == "Local" && cur.Status.Conditions[0].Status == api.ConditionTrue {
		return
	}
	next := cur.DeepCopy()
	next.Status = a.Status
	if _, err := s.update(next, true, writeOptions{}); err != nil && !apierrors.IsConflict(err) {
		s.log.Warn("setting an APIService's status", zap.String("name", a.Metadata.Name), zap.Error(err))
	}
}
