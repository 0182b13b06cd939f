// etcd, as its own main.go builds it: the server's entry point with the process arguments.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
