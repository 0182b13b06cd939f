// The test pods' program (main.go) and the sandbox image's: standard library only, built static
// and packed as OCI images by ../images.ts. A module of its own, outside the control plane's pin
// hash (build.ts hashes ../../go and ../../kwok only): changing it rebuilds the images, not Kubernetes.
module kguard.test/testapp

go 1.26.0
