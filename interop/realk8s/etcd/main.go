// Command etcd is etcd v3.5's own server, unmodified: what etcd's root
// main.go runs (etcdmain.Main), built from the module proxy. Nothing of
// miniplane is imported.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
