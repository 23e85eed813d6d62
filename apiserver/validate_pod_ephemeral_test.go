package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// debugger is an ephemeral container as kubectl debug makes one.
func debugger(name string) api.EphemeralContainer {
	return api.EphemeralContainer{EphemeralContainerCommon: api.Container{Name: name, Image: "busybox",
		ImagePullPolicy: api.PullIfNotPresent, TerminationMessagePolicy: api.TerminationMessageReadFile}}
}

// The scenarios of Kubernetes' TestValidateEphemeralContainers that
// miniplane's container fields can express, through the subresource's
// update (which validates the whole pod, as ValidatePodEphemeralContainersUpdate does).
func TestValidateEphemeralContainers(t *testing.T) {
	const noField = "cannot be set for an Ephemeral Container"
	for _, tc := range []struct {
		name   string
		change func(*api.EphemeralContainer)
		more   []api.EphemeralContainer // added after it
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.EphemeralContainer) {}},
		{name: "targets a container", change: func(ec *api.EphemeralContainer) { ec.TargetContainerName = "web" }},
		{name: "targets an init container", change: func(ec *api.EphemeralContainer) { ec.TargetContainerName = "init" }},
		{name: "name collision with a container", change: func(ec *api.EphemeralContainer) { ec.Name = "web" },
			want: `spec.ephemeralContainers[0].name: Duplicate value: "web"`, causes: []cause{{duplicate, "spec.ephemeralContainers[0].name"}}},
		{name: "name collision with an init container", change: func(ec *api.EphemeralContainer) { ec.Name = "init" },
			want: `spec.ephemeralContainers[0].name: Duplicate value: "init"`, causes: []cause{{duplicate, "spec.ephemeralContainers[0].name"}}},
		{name: "name collision with an ephemeral container", change: func(*api.EphemeralContainer) {}, more: []api.EphemeralContainer{debugger("debug")},
			want: `spec.ephemeralContainers[1].name: Duplicate value: "debug"`, causes: []cause{{duplicate, "spec.ephemeralContainers[1].name"}}},
		{name: "empty name", change: func(ec *api.EphemeralContainer) { ec.Name = "" },
			want: "spec.ephemeralContainers[0].name: Required value", causes: []cause{{required, "spec.ephemeralContainers[0].name"}}},
		{name: "whitespace padded image name", change: func(ec *api.EphemeralContainer) { ec.Image = " image" },
			want:   `spec.ephemeralContainers[0].image: Invalid value: " image": must not have leading or trailing whitespace`,
			causes: []cause{{invalid, "spec.ephemeralContainers[0].image"}}},
		{name: "invalid image pull policy", change: func(ec *api.EphemeralContainer) { ec.ImagePullPolicy = "PullThreeTimes" },
			want:   `spec.ephemeralContainers[0].imagePullPolicy: Unsupported value: "PullThreeTimes": supported values: "Always", "IfNotPresent", "Never"`,
			causes: []cause{{notSupported, "spec.ephemeralContainers[0].imagePullPolicy"}}},
		{name: "target container does not exist", change: func(ec *api.EphemeralContainer) { ec.TargetContainerName = "bogus" },
			want: `spec.ephemeralContainers[0].targetContainerName: Not found: "bogus"`, causes: []cause{{notFound, "spec.ephemeralContainers[0].targetContainerName"}}},
		{name: "targets an ephemeral container", change: func(*api.EphemeralContainer) {},
			more: []api.EphemeralContainer{{EphemeralContainerCommon: debugger("debugception").EphemeralContainerCommon, TargetContainerName: "debug"}},
			want: `spec.ephemeralContainers[1].targetContainerName: Not found: "debug"`, causes: []cause{{notFound, "spec.ephemeralContainers[1].targetContainerName"}}},
		{name: "liveness probe", change: func(ec *api.EphemeralContainer) {
			ec.LivenessProbe = &api.Probe{ProbeHandler: api.ProbeHandler{Exec: &api.ExecAction{Command: []string{"true"}}}}
		}, want: "spec.ephemeralContainers[0].livenessProbe: Forbidden: " + noField, causes: []cause{{forbidden, "spec.ephemeralContainers[0].livenessProbe"}}},
		{name: "ports", change: func(ec *api.EphemeralContainer) { ec.Ports = []api.ContainerPort{{Name: "port", ContainerPort: 80}} },
			want: "spec.ephemeralContainers[0].ports: Forbidden: " + noField, causes: []cause{{forbidden, "spec.ephemeralContainers[0].ports"}}},
		{name: "readiness probe", change: func(ec *api.EphemeralContainer) {
			ec.ReadinessProbe = &api.Probe{ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromInt(80)}}}
		}, want: "spec.ephemeralContainers[0].readinessProbe: Forbidden: " + noField, causes: []cause{{forbidden, "spec.ephemeralContainers[0].readinessProbe"}}},
		{name: "startup probe", change: func(ec *api.EphemeralContainer) {
			ec.StartupProbe = &api.Probe{ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromInt(80)}}}
		}, want: "spec.ephemeralContainers[0].startupProbe: Forbidden: " + noField, causes: []cause{{forbidden, "spec.ephemeralContainers[0].startupProbe"}}},
		{name: "resources", change: func(ec *api.EphemeralContainer) {
			ec.Resources = api.ResourceRequirements{Limits: api.ResourceList{"cpu": "1"}, Requests: api.ResourceList{"cpu": "1"}}
		}, want: "spec.ephemeralContainers[0].resources: Forbidden: " + noField, causes: []cause{{forbidden, "spec.ephemeralContainers[0].resources"}}},
		{name: "volume subPath", change: func(ec *api.EphemeralContainer) {
			ec.VolumeMounts = []api.VolumeMount{{Name: "vol", MountPath: "/vol"}, {Name: "vol", MountPath: "/volsub", SubPath: "foo"}}
		}, want: "spec.ephemeralContainers[0].volumeMounts[1].subPath: Forbidden: " + noField,
			causes: []cause{{forbidden, "spec.ephemeralContainers[0].volumeMounts[1].subPath"}}},
		{name: "volume subPathExpr", change: func(ec *api.EphemeralContainer) {
			ec.VolumeMounts = []api.VolumeMount{{Name: "vol", MountPath: "/vol"}, {Name: "vol", MountPath: "/volsub", SubPathExpr: "$(POD_NAME)"}}
		}, want: "spec.ephemeralContainers[0].volumeMounts[1].subPathExpr: Forbidden: " + noField,
			causes: []cause{{forbidden, "spec.ephemeralContainers[0].volumeMounts[1].subPathExpr"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := validPod()
			old.Spec.Volumes = []api.Volume{{Name: "vol", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}
			defaultPod(old)
			in := old.DeepCopy()
			ec := debugger("debug")
			tc.change(&ec)
			in.Spec.EphemeralContainers = append([]api.EphemeralContainer{ec}, tc.more...)
			_, errs := prepareEphemeralContainersUpdate(in, old)
			assertErrors(t, errs, tc.want, tc.causes)
		})
	}
}

// The scenarios of Kubernetes' TestValidatePodEphemeralContainersUpdate:
// ephemeral containers are added, never removed or changed, and a static
// pod's mirror takes none.
func TestValidatePodEphemeralContainersUpdate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		old    []api.EphemeralContainer
		new    []api.EphemeralContainer
		mirror bool
		want   string
		causes []cause
	}{
		{name: "no change"},
		{name: "no change with ephemeral containers", old: []api.EphemeralContainer{debugger("debugger")}, new: []api.EphemeralContainer{debugger("debugger")}},
		{name: "add first ephemeral container", new: []api.EphemeralContainer{debugger("debugger")}},
		{name: "add second ephemeral container", old: []api.EphemeralContainer{debugger("debugger1")},
			new: []api.EphemeralContainer{debugger("debugger1"), debugger("debugger2")}},
		{name: "add second ephemeral container as the first", old: []api.EphemeralContainer{debugger("debugger2")},
			new: []api.EphemeralContainer{debugger("debugger1"), debugger("debugger2")}},
		{name: "remove the ephemeral container", old: []api.EphemeralContainer{debugger("debugger")},
			want:   "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"debugger\" may not be removed\n",
			causes: []cause{{forbidden, "spec.ephemeralContainers"}}},
		{name: "replace the ephemeral container", old: []api.EphemeralContainer{debugger("debugger1")}, new: []api.EphemeralContainer{debugger("debugger2")},
			want:   "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"debugger1\" may not be removed\n",
			causes: []cause{{forbidden, "spec.ephemeralContainers"}}},
		{name: "change the ephemeral container", old: []api.EphemeralContainer{debugger("debugger")},
			new: []api.EphemeralContainer{{EphemeralContainerCommon: api.Container{Name: "debugger", Image: "debian",
				ImagePullPolicy: api.PullIfNotPresent, TerminationMessagePolicy: api.TerminationMessageReadFile}}},
			want: "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"debugger\" may not be changed\n" +
				`- {"name":"debugger","image":"busybox","resources":{},"imagePullPolicy":"IfNotPresent","terminationMessagePolicy":"File"}` + "\n" +
				`+ {"name":"debugger","image":"debian","resources":{},"imagePullPolicy":"IfNotPresent","terminationMessagePolicy":"File"}`,
			causes: []cause{{forbidden, "spec.ephemeralContainers"}}},
		{name: "a static pod's mirror", mirror: true, new: []api.EphemeralContainer{debugger("debugger")},
			want: ": Forbidden: static pods do not support ephemeral containers", causes: []cause{{forbidden, ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := validPod()
			if tc.mirror {
				old.Metadata.Annotations = map[string]string{mirrorPodAnnotation: "abc"}
			}
			old.Spec.EphemeralContainers = tc.old
			defaultPod(old)
			in := old.DeepCopy()
			in.Spec.EphemeralContainers = tc.new
			in.Spec.Containers[0].Image = "ignored:2" // only the ephemeral containers are taken
			next, errs := prepareEphemeralContainersUpdate(in, old)
			assertErrors(t, errs, tc.want, tc.causes)
			if tc.want == "" {
				assert.Equal(t, old.Spec.Containers, next.Spec.Containers)
				assert.Equal(t, in.Spec.EphemeralContainers, next.Spec.EphemeralContainers)
			}
		})
	}
}

// A pod is created without ephemeral containers, a plain update may not
// change them, and a template may not have them.
func TestEphemeralContainersOutsideTheSubresource(t *testing.T) {
	const forbiddenSpec = "spec: Forbidden: pod updates may not change fields other than " + updatablePodSpecFields
	withDebugger := validPod()
	withDebugger.Spec.EphemeralContainers = []api.EphemeralContainer{debugger("debugger")}
	defaultPod(withDebugger)
	plain := validPod()
	defaultPod(plain)
	assertErrors(t, validatePodCreate(withDebugger), "spec.ephemeralContainers: Forbidden: cannot be set on create",
		[]cause{{forbidden, "spec.ephemeralContainers"}})
	assertErrors(t, validatePodUpdate(withDebugger, plain), forbiddenSpec, []cause{{forbidden, "spec"}})
	assertErrors(t, validatePodUpdate(plain, withDebugger), forbiddenSpec, []cause{{forbidden, "spec"}})
	tmpl := &api.PodTemplate{Metadata: api.ObjectMeta{Name: "t", Namespace: "default"},
		Template: api.PodTemplateSpec{Metadata: withDebugger.Metadata, Spec: withDebugger.Spec}}
	assertErrors(t, validatePodTemplate(tmpl), "template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template",
		[]cause{{forbidden, "template.spec.ephemeralContainers"}})
}

// FuzzEphemeralContainersUpdate: whatever ephemeral containers a client
// sends, the update is refused or stores exactly them (defaulted) on the
// stored pod, never anything else of what it sent.
func FuzzEphemeralContainersUpdate(f *testing.F) {
	f.Add("debugger", "busybox", "web", "sh", "debugger", "")
	f.Add("web", " image", "bogus", "", "other", "/x")
	f.Fuzz(func(t *testing.T, name, image, target, command, oldName, subPath string) {
		old := validPod()
		defaultPod(old)
		if oldName != "" {
			old.Spec.EphemeralContainers = []api.EphemeralContainer{debugger(oldName)}
		}
		in := old.DeepCopy()
		in.Spec.Containers[0].Image = "sent:2"
		ec := api.EphemeralContainer{EphemeralContainerCommon: api.Container{Name: name, Image: image, Command: []string{command}}, TargetContainerName: target}
		if subPath != "" {
			ec.VolumeMounts = []api.VolumeMount{{Name: "v", MountPath: "/v", SubPath: subPath}}
		}
		in.Spec.EphemeralContainers = append(in.Spec.EphemeralContainers, ec)
		next, errs := prepareEphemeralContainersUpdate(in, old)
		if len(errs) > 0 {
			assert.Nil(t, next)
			return
		}
		assert.Equal(t, old.Spec.Containers, next.Spec.Containers)
		assert.Len(t, next.Spec.EphemeralContainers, len(in.Spec.EphemeralContainers))
		assert.Equal(t, name, next.Spec.EphemeralContainers[len(next.Spec.EphemeralContainers)-1].Name)
	})
}
