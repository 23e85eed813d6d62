package container

// Config is what an image's configuration says about the container the
// runtime makes from it: the entrypoint and command (cmd) it runs when the
// pod does not say, and the user it runs as. Kubernetes: the OCI image
// config's Entrypoint, Cmd and User, which containerd and the kubelet's
// getImageUser read.
type Config struct {
	Entrypoint, Cmd []string
	// UID is the image's USER (0, root, when it names none).
	UID int64
}

// imageConfigs are the configurations of the images whose programs the
// command grammar runs, by repository (ParseRef's short form, any tag):
// the Kubernetes e2e images' Dockerfiles (test/images/...). An image not
// listed runs as root, and with no command given runs its own, which the
// simulator does not know (Plan).
var imageConfigs = map[string]Config{
	// ENTRYPOINT ["/agnhost"], CMD ["pause"].
	"registry.k8s.io/e2e-test-images/agnhost": {Entrypoint: []string{"/agnhost"}, Cmd: []string{"pause"}},
	// CMD ["nnp"]: a setuid-root program printing its effective uid.
	"registry.k8s.io/e2e-test-images/nonewprivs": {Cmd: []string{"nnp"}},
	// The update-demo images: agnhost's, CMD ["test-webserver"], serving
	// the data.json they hold (serve.go).
	"registry.k8s.io/e2e-test-images/nautilus": {Entrypoint: []string{"/agnhost"}, Cmd: []string{"test-webserver"}},
	"registry.k8s.io/e2e-test-images/kitten":   {Entrypoint: []string{"/agnhost"}, Cmd: []string{"test-webserver"}},
	// busybox with USER 1234.
	"registry.k8s.io/e2e-test-images/nonroot": {UID: 1234},
}

// ImageConfig returns the configuration of image, if the simulator knows
// it.
func ImageConfig(image string) (Config, bool) {
	ref, ok := ParseRef(image)
	if !ok {
		return Config{}, false
	}
	c, ok := imageConfigs[ref.short()]
	return c, ok
}

// Argv is what the runtime runs for a container of command and args
// (Docker's and the OCI's rule, which the kubelet documents): the
// container's command replaces the entrypoint and drops the image's cmd;
// without one, the entrypoint runs with the container's args, or the
// image's cmd when it has none. Kubernetes: "Define a Command and
// Arguments for a Container", and containerd's WithProcessArgs.
func (c Config) Argv(command, args []string) (cmd, arguments []string) {
	if len(command) > 0 {
		return command, args
	}
	if len(args) > 0 {
		return c.Entrypoint, args
	}
	return c.Entrypoint, c.Cmd
}
