//go:build tools

// The binary this module builds, so that `go mod tidy` keeps its dependencies.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
