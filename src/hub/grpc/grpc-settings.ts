// The settings of the hub's gRPC registration driver once validated: the gRPC CA that signs agents'
// client certificates (and verifies them), how long those certificates live, the bootstrap users
// auto-approved over gRPC, and the CloudEvents server's listener. Defaults are OCM's.

export interface GrpcServerSettings {
  /** `host:port` or `:port` (every interface); OCM's default port is 8090. */
  listen: string;
  /** Serving certificate and key (PEM files); neither = a certificate issued at start by the gRPC CA. */
  certFile?: string;
  keyFile?: string;
  /** CA bundle verifying client certificates; default the gRPC CA. */
  clientCaFile?: string;
  /** Interval of the heartbeats sent on every subscription (OCM: 10 s). */
  heartbeatIntervalMs: number;
  heartbeatDisabled: boolean;
}

export interface GrpcDriverSettings {
  caFile: string;
  keyFile: string;
  /** `--grpc-signing-duration` (OCM: 720h). */
  signingDurationMs: number;
  autoApprovedUsers: readonly string[];
  server: Readonly<GrpcServerSettings>;
}

export const GRPC_DEFAULTS = Object.freeze({
  listen: ':8090',
  signingDurationMs: 720 * 3600_000,
  heartbeatIntervalMs: 10_000,
});
