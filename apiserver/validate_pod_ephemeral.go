package apiserver

// Ephemeral containers: debugging containers added to a running pod through
// its ephemeralcontainers subresource, never on create, never in a template,
// never removed or changed once added. Kubernetes: validateEphemeralContainers,
// ValidatePodCreate, ValidatePodTemplateSpec and
// ValidatePodEphemeralContainersUpdate in pkg/apis/core/validation, and
// podEphemeralContainersStrategy in pkg/registry/core/pod.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// ephemeralContainerFields are the container fields an ephemeral container
// may set, by Go name: ports, probes and resources would make the pod rely
// on a container that is there only to inspect it. A field missing here is
// refused, so a field added to Container later must be thought about.
// Kubernetes: allowedEphemeralContainerFields.
var ephemeralContainerFields = map[string]bool{
	"Name": true, "Image": true, "Command": true, "Args": true, "EnvFrom": true, "Env": true,
	"VolumeMounts": true, "ImagePullPolicy": true, "TerminationMessagePath": true,
	"TerminationMessagePolicy": true, "SecurityContext": true,
}

// validateEphemeralContainers checks a pod spec's ephemeral containers at p:
// each as any container, with a name no other container of the pod has, a
// targetContainerName naming one of its containers or init containers, only
// the allowed fields set, and no volume subpaths (which would be bind mounts
// left behind until the pod ends).
func validateEphemeralContainers(errs apierrors.FieldErrors, s *api.PodSpec, p fieldPath) apierrors.FieldErrors {
	for i := range s.EphemeralContainers {
		ec := &s.EphemeralContainers[i]
		c := &ec.EphemeralContainerCommon
		at := p.index(i)
		errs = validateContainerCommon(errs, c, at)
		errs = validateVolumeMounts(errs, c.VolumeMounts, s.Volumes, at.child("volumeMounts"))
		if len(strings.TrimSpace(c.Image)) != len(c.Image) {
			errs = append(errs, Invalid(at.child("image").path(), c.Image, "must not have leading or trailing whitespace"))
		}
		if containerNamed(s.Containers, c.Name) || containerNamed(s.InitContainers, c.Name) || ephemeralIndex(s.EphemeralContainers[:i], c.Name) >= 0 {
			errs = append(errs, Duplicate(at.child("name").path(), c.Name))
		}
		if t := ec.TargetContainerName; t != "" && !containerNamed(s.Containers, t) && !containerNamed(s.InitContainers, t) {
			errs = append(errs, NotFound(at.child("targetContainerName").path(), t))
		}
		errs = validateFieldAllowList(errs, reflect.ValueOf(c).Elem(), ephemeralContainerFields, "cannot be set for an Ephemeral Container", at)
		for j, m := range c.VolumeMounts {
			if m.SubPath != "" {
				errs = append(errs, Forbidden(at.child("volumeMounts").index(j).child("subPath").path(), "cannot be set for an Ephemeral Container"))
			}
			if m.SubPathExpr != "" {
				errs = append(errs, Forbidden(at.child("volumeMounts").index(j).child("subPathExpr").path(), "cannot be set for an Ephemeral Container"))
			}
		}
	}
	return errs
}

// validateFieldAllowList reports, at p, each field of the struct v that is
// set but not allowed, named as its Go name with a lower-case first letter.
// Kubernetes: validateFieldAllowList.
func validateFieldAllowList(errs apierrors.FieldErrors, v reflect.Value, allowed map[string]bool, detail string, p fieldPath) apierrors.FieldErrors {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if allowed[f.Name] || v.Field(i).IsZero() {
			continue
		}
		r, n := utf8.DecodeRuneInString(f.Name)
		errs = append(errs, Forbidden(p.child(string(unicode.ToLower(r))+f.Name[n:]).path(), detail))
	}
	return errs
}

// validatePodCreate checks a pod on create: a valid pod, without ephemeral
// containers, which only the ephemeralcontainers subresource adds.
// Kubernetes: ValidatePodCreate.
func validatePodCreate(p *api.Pod) apierrors.FieldErrors {
	errs := validatePod(p)
	if len(p.Spec.EphemeralContainers) > 0 {
		errs = append(errs, Forbidden(pathAt("spec").child("ephemeralContainers").path(), "cannot be set on create"))
	}
	return errs
}

// forbidTemplateEphemeralContainers refuses ephemeral containers in a pod
// template's spec at p: they are added to running pods only. Kubernetes:
// ValidatePodTemplateSpec.
func forbidTemplateEphemeralContainers(errs apierrors.FieldErrors, s *api.PodSpec, p fieldPath) apierrors.FieldErrors {
	if len(s.EphemeralContainers) > 0 {
		errs = append(errs, Forbidden(p.child("ephemeralContainers").path(), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

// prepareEphemeralContainersUpdate is what an update through the
// ephemeralcontainers subresource stores: the stored pod (old) with in's
// ephemeral containers, defaulted, and nothing else of in. It is refused
// when the pod is a static pod's mirror, or when an ephemeral container old
// has is missing or changed in in. Kubernetes:
// podEphemeralContainersStrategy.PrepareForUpdate and ValidateUpdate
// (ValidatePodEphemeralContainersUpdate); upstream's "may not be changed"
// detail ends in a go-cmp diff, which here is the two containers as JSON.
func prepareEphemeralContainersUpdate(in, old *api.Pod) (*api.Pod, apierrors.FieldErrors) {
	next := old.DeepCopy()
	next.Spec.EphemeralContainers = in.Spec.EphemeralContainers
	for i := range next.Spec.EphemeralContainers {
		defaultContainer(&next.Spec.EphemeralContainers[i].EphemeralContainerCommon)
	}
	errs := validatePod(next)
	if _, ok := old.Metadata.Annotations[mirrorPodAnnotation]; ok {
		return nil, apierrors.FieldErrors{Forbidden("", "static pods do not support ephemeral containers")}
	}
	at := pathAt("spec").child("ephemeralContainers").path()
	for i := range old.Spec.EphemeralContainers {
		was := &old.Spec.EphemeralContainers[i]
		j := ephemeralIndex(next.Spec.EphemeralContainers, was.Name)
		switch {
		case j < 0:
			errs = append(errs, Forbidden(at, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", was.Name)))
		case !semanticEqual(reflect.ValueOf(was).Elem(), reflect.ValueOf(&next.Spec.EphemeralContainers[j]).Elem()):
			errs = append(errs, Forbidden(at, fmt.Sprintf("existing ephemeral containers %q may not be changed\n%s", was.Name,
				ephemeralDiff(was, &next.Spec.EphemeralContainers[j]))))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return next, nil
}

// ephemeralIndex is the index of the ephemeral container name in ecs, or -1.
func ephemeralIndex(ecs []api.EphemeralContainer, name string) int {
	for i := range ecs {
		if ecs[i].Name == name {
			return i
		}
	}
	return -1
}

// ephemeralDiff shows a changed ephemeral container as it was and as sent.
func ephemeralDiff(was, now *api.EphemeralContainer) string {
	a, _ := json.Marshal(was) // a Container always encodes
	b, _ := json.Marshal(now)
	return "- " + string(a) + "\n+ " + string(b)
}
