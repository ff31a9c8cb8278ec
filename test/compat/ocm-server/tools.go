//go:build tools

// The compatibility suite builds this command from the pinned release.
package tools

import _ "open-cluster-management.io/ocm/cmd/server"
