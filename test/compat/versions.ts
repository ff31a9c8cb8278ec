// The reference implementations the suite builds, pinned by the wrapper modules test/compat/kube
// and test/compat/ocm. The Kubernetes release is the one whose libraries the OCM release is built
// with (OCM v1.2.1: Kubernetes 1.34.3). OCM v1.2.1 is the newest release the Go module proxy serves.
export const KUBE_VERSION = 'v1.34.3';
export const OCM_VERSION = 'v1.2.1';
