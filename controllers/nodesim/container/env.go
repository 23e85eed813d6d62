package container

// Input is what the kubelet hands a container when it starts it, besides
// its command: its environment and its filesystem. Its zero value is an
// empty environment and filesystem.
type Input struct {
	// Env is the environment, in the order `env` prints it.
	Env []EnvVar
	// FS is the filesystem of its mounted volumes.
	FS FS
}

// EnvVar is one variable of a container's environment.
type EnvVar struct{ Name, Value string }

// lookup returns the value of the variable name.
func (in *Input) lookup(name string) (string, bool) {
	for i := len(in.Env) - 1; i >= 0; i-- {
		if in.Env[i].Name == name {
			return in.Env[i].Value, true
		}
	}
	return "", false
}
