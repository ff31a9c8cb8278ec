// What the dashboard's server sends to the page: plain JSON view models, built on the server from
// the API objects the signed-in user may read (./fleet-view.ts), rendered as they are by ./web/.
// No imports: the browser bundle shares these types.

/** Status of a ManagedCluster condition as `get clusters` shows it: '' when absent. */
export type ConditionStatus = '' | 'True' | 'False' | 'Unknown';

/** The registration flow of one cluster, in order. */
type TimelineStepId = 'created' | 'csrCreated' | 'approved' | 'signed' | 'accepted' | 'joined' | 'available';

export interface TimelineStep {
  id: TimelineStepId;
  label: string;
  /** RFC 3339 time the step happened; undefined while it has not. */
  at?: string;
}

/** One line of the fleet table: `get clusters`' columns plus lease age and certificate expiry. */
export interface FleetRow {
  name: string;
  hubAccepted: boolean;
  urls: string[];
  joined: ConditionStatus;
  available: ConditionStatus;
  createdAt?: string;
  /** The cluster lease's last renewal. */
  leaseRenewedAt?: string;
  /** notAfter of the newest client certificate the hub signed for the cluster's agent. */
  certNotAfter?: string;
  clusterSet?: string;
  kubernetesVersion?: string;
  timeline: TimelineStep[];
}

/** A CSR of a cluster's agent nobody has approved or denied yet. */
export interface PendingCsr {
  name: string;
  cluster: string;
  requester: string;
  createdAt?: string;
  /** Why `accept` would refuse to approve it; undefined when it would approve it. */
  problem?: string;
}

export interface ClusterSetView {
  name: string;
  selectorType: string;
  clusters: string[];
}

/** Fleet counts at one instant, for the chart. */
export interface ChartPoint {
  /** Milliseconds since the epoch. */
  t: number;
  joined: number;
  available: number;
  total: number;
}

export interface FleetState {
  /** The server's clock when the state was built (RFC 3339): ages are counted from it. */
  now: string;
  user: string;
  rows: FleetRow[];
  pendingCsrs: PendingCsr[];
  /** Clusters whose hubAcceptsClient is not true and that are not being deleted. */
  unaccepted: string[];
  sets: ClusterSetView[];
  chart: ChartPoint[];
  /** One line per kind the user may not read (or that failed), shown above the table. */
  errors: string[];
}

/** Answer of `POST /api/clusters/NAME/accept`. */
export interface AcceptAnswer {
  cluster: string;
  approvedCsrs: string[];
  accepted: 'newly' | 'already';
  lines: string[];
}
