package apiserver

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/quota"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// maxNameAttempts is how many generated names a create tries before it gives
// up with AlreadyExists, as Kubernetes does.
const maxNameAttempts = 8

// Create stores a new object. The server copies obj once and owns the copy
// (with client.Handover() it takes obj itself);
// it sets uid, creationTimestamp, generation 1 and resourceVersion, fills a
// name from generateName, defaults and validates the object per its kind,
// and returns the stored object (converted to obj's version when obj's kind
// serves a stored kind in another version). With client.DryRun() it runs
// every check and returns the object as it would be stored (uid and
// creationTimestamp set, no resourceVersion), storing nothing.
func (s *Server) Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	return s.create(obj, writeOptionsOf(ctx, opts))
}

func (s *Server) create(obj api.Object, opts writeOptions) (api.Object, error) {
	k, err := s.kindOf(obj)
	if err != nil {
		return nil, err
	}
	in := obj
	if !opts.Handover || k.toStored != nil {
		in = k.in(obj)
	}
	sk := k.stored()
	m := in.GetObjectMeta()
	if m.ResourceVersion != "" {
		return nil, apierrors.NewBadRequest("resourceVersion should not be set on objects to be created")
	}
	if !k.namespaced {
		m.Namespace = "" // cluster-scoped: Kubernetes ignores a namespace
	} else if m.Namespace != "" {
		if err := s.checkNamespaceOpen(k, m); err != nil {
			return nil, err
		}
	}

	// Fields the server owns start afresh, whatever the client sent.
	*in.GetTypeMeta() = api.TypeMeta{APIVersion: sk.apiVersion, Kind: sk.kind}
	m.UID, m.CreationTimestamp = "", api.Time{}
	m.DeletionTimestamp, m.DeletionGracePeriodSeconds = nil, nil
	m.Generation = 1
	if k.resetStatusOnCreate {
		k.status.reset(in)
	}
	// Admission runs before the kind's defaults and validation, as
	// kube-apiserver's mutating admission runs before its strategy.
	ctx := opts.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if p, ok := in.(*api.Pod); ok && s.serviceAccounts {
		if err := s.admitServiceAccount(ctx, p); err != nil {
			return nil, err
		}
	}
	if pvc, ok := in.(*api.PersistentVolumeClaim); ok {
		if err := s.admitDefaultStorageClass(ctx, pvc); err != nil {
			return nil, err
		}
	}
	if ing, ok := in.(*api.Ingress); ok {
		if err := s.admitDefaultIngressClass(ctx, ing); err != nil {
			return nil, err
		}
	}
	if p, ok := in.(*api.Pod); ok && s.priorityClasses {
		if err := s.admitPriority(p); err != nil {
			return nil, err
		}
	}
	if csr, ok := in.(*api.CertificateSigningRequest); ok {
		u, ok := client.UserFrom(opts.ctx)
		setCSRRequester(csr, u, ok)
	}
	if p, ok := in.(*api.Pod); ok {
		if err := s.admitRuntimeClass(p); err != nil {
			return nil, err
		}
	}
	if p, ok := in.(*api.Pod); ok {
		p.Status.Phase = api.PodPending // every pod starts Pending, as Kubernetes' pod strategy sets it
		p.Status.QOSClass = quota.QOSClass(p)
	}
	if ns, ok := in.(*api.Namespace); ok {
		// Every namespace is born Active and held by the "kubernetes"
		// finalizer, which Sweep removes once the namespace is empty.
		ns.Status.Phase = api.NamespaceActive
		if !slices.Contains(ns.Spec.Finalizers, api.FinalizerKubernetes) {
			ns.Spec.Finalizers = append(ns.Spec.Finalizers, api.FinalizerKubernetes)
		}
	}

	generated := m.Name == "" && m.GenerateName != ""
	var key string // the store key of m.Name, once it is made
	if generated {
		key, m.Name = s.generateKey(k, m.Namespace, m.GenerateName)
	}
	if k.uidBeforeDefaults {
		m.UID = s.newUID()
	}
	k.defaults(in)
	if ds, ok := in.(*api.DaemonSet); ok {
		stampTemplateGeneration(ds, nil)
	}
	// LimitRanger sees the pod defaulted (a limit without a request
	// already requested), as kube-apiserver decodes and defaults a body
	// before its admission.
	if err := s.admitLimitRanges(sk, in); err != nil {
		return nil, err
	}
	if errs := k.validate(in); len(errs) > 0 && !opts.ownWrite {
		// The stored kind names the invalid object, whichever version the
		// request used, as kube-apiserver validates its internal form.
		return nil, apierrors.NewInvalid(sk.gr.Group, sk.kind, m.Name, errs)
	}
	if pc, ok := in.(*api.PriorityClass); ok {
		if err := s.admitPriorityClass(pc, true); err != nil {
			return nil, err
		}
	}
	if err := s.admitPolicies(admissionRequest{k: sk, operation: api.OperationCreate, name: m.Name, ns: m.Namespace,
		obj: in, dryRun: opts.DryRun, ctx: opts.ctx}); err != nil {
		return nil, err
	}
	release, err := s.allocate(k, in, opts.DryRun)
	if err != nil {
		return nil, err
	}
	charge, err := s.admitQuota(sk, in)
	if err != nil {
		release()
		return nil, err
	}
	defer charge.done()
	if opts.DryRun {
		release()
		if _, err := s.store.Get(k.key(m.Namespace, m.Name), 0); err == nil && !generated {
			return nil, apierrors.NewAlreadyExists(k.gr, m.Name)
		}
		if !k.uidBeforeDefaults {
			m.UID = s.newUID()
		}
		m.CreationTimestamp = s.now()
		return k.out(in), nil
	}

	m.ManagedFields = s.stamp(m.ManagedFields, opts.fieldManager, "", sk.apiVersion)
	if key == "" {
		// The name becomes the key's tail, as a generated one is: the
		// store keeps the key as long as the object lives, so the stored
		// object then holds one string where it held two (225,000 event
		// names in a scale-up, each a string the recorder made).
		key = k.key(m.Namespace, m.Name)
		m.Name = key[len(key)-len(m.Name):]
	}
	for attempt := 1; ; attempt++ {
		if !k.uidBeforeDefaults {
			m.UID = s.newUID()
		}
		m.CreationTimestamp = s.now()
		rec, err := s.store.Create(key, in)
		if err == nil {
			if ce := s.log.Check(zap.DebugLevel, "created"); ce != nil {
				ce.Write(zap.String("resource", k.gr.String()), zap.String("key", api.KeyOf(m)), zap.Int64("rev", rec.ModRev))
			}
			if crd, ok := rec.Value.(*api.CustomResourceDefinition); ok {
				s.crdWritten(crd)
			}
			charge.commit()
			return k.out(rec.Value), nil
		}
		if !errors.Is(err, store.ErrExists) {
			release()
			return nil, apierrors.NewInternalError(err)
		}
		if !generated || attempt == maxNameAttempts {
			release()
			return nil, apierrors.NewAlreadyExists(k.gr, m.Name)
		}
		key, m.Name = s.generateKey(k, m.Namespace, m.GenerateName)
	}
}

// checkNamespaceOpen refuses a create in a namespace that does not exist or
// is being deleted (Kubernetes' NamespaceLifecycle admission).
func (s *Server) checkNamespaceOpen(k *kind, m *api.ObjectMeta) error {
	namespace := m.Namespace
	if s.openNS.isOpen(namespace) {
		return nil
	}
	epoch := s.openNS.at()
	nsKind := s.kinds[client.Namespaces]
	rec, err := s.store.Get(nsKind.key("", namespace), 0)
	if err != nil {
		return apierrors.NewNotFound(nsKind.gr, namespace)
	}
	if rec.Value.(*api.Namespace).Status.Phase == api.NamespaceTerminating {
		msg := fmt.Sprintf("unable to create new content in namespace %s because it is being terminated", namespace)
		err := apierrors.NewForbidden(k.gr, admissionName(m), msg)
		err.Status.Details.Causes = []api.StatusCause{{Type: api.NamespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", namespace), Field: "metadata.namespace"}}
		return err
	}
	s.openNS.saw(namespace, epoch)
	return nil
}

// admissionName is the name an admission refusal of a create gives the
// object, as kube-apiserver's admission.NewForbidden does: its name, else
// its generateName (names are generated after admission), else "Unknown".
func admissionName(m *api.ObjectMeta) string {
	switch {
	case m.Name != "":
		return m.Name
	case m.GenerateName != "":
		return m.GenerateName
	}
	return "Unknown"
}

// allocate takes the resources a new object holds outside the store: a
// service's cluster IP and node ports (dry: checks them only). It returns
// the undo for a create that then fails.
func (s *Server) allocate(k *kind, obj api.Object, dry bool) (release func(), err error) {
	svc, ok := obj.(*api.Service)
	if !ok || svc.Spec.Type == api.ServiceTypeExternalName || svc.Spec.ClusterIP == api.ClusterIPNone {
		return func() {}, nil
	}
	if svc.Spec.ClusterIP == "" {
		ip, err := s.ips.allocate(dry)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("allocating a cluster IP: %w", err))
		}
		svc.Spec.ClusterIP = ip
	} else if err := s.ips.reserve(svc.Spec.ClusterIP, dry); err != nil {
		if !isRefusal(err) {
			return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate IP %s: %w", svc.Spec.ClusterIP, err))
		}
		return nil, apierrors.NewInvalid(k.gr.Group, k.kind, svc.Metadata.Name,
			apierrors.FieldErrors{Invalid(NewPath("spec", "clusterIPs").Index(0), svc.Spec.ClusterIP, err.Error())})
	}
	svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
	ip := svc.Spec.ClusterIP
	releasePorts, err := s.allocateNodePorts(k, svc, nil, dry)
	if err != nil {
		if !dry {
			s.ips.release(ip)
		}
		return nil, err
	}
	if dry {
		return func() {}, nil
	}
	return func() { s.ips.release(ip); releasePorts() }, nil
}
