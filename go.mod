module github.com/miniplane/miniplane

go 1.26

require (
	github.com/google/btree v1.1.3
	github.com/stretchr/testify v1.12.1
	go.uber.org/zap v1.28.0
	google.golang.org/protobuf v1.36.12-0.20260120151049-f2248ac996af
)

require (
	go.uber.org/multierr v1.10.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
