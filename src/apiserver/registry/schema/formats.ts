// Cheap checks for the OpenAPI `format` values kube-apiserver validates. Unknown
// formats are accepted. Only string values are checked here (int32/int64 ranges are numeric).

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BYTE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const IPV4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*$/;
const DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$|^0$/;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

function isIPv6(s: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(s) || !s.includes(':')) return false;
  const dbl = s.split('::');
  if (dbl.length > 2) return false;
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const all = [...groups(dbl[0] ?? ''), ...(dbl.length === 2 ? groups(dbl[1] ?? '') : [])];
  let count = 0;
  for (let i = 0; i < all.length; i++) {
    const g = all[i] as string;
    if (i === all.length - 1 && g.includes('.')) {
      if (!IPV4.test(g)) return false;
      count += 2;
    } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) {
      count += 1;
    } else {
      return false;
    }
  }
  return dbl.length === 2 ? count < 8 : count === 8;
}

function isCIDR(s: string): boolean {
  const [ip, bits, extra] = s.split('/');
  if (ip === undefined || bits === undefined || extra !== undefined || !/^\d{1,3}$/.test(bits)) return false;
  const n = Number(bits);
  if (IPV4.test(ip)) return n <= 32;
  return isIPv6(ip) && n <= 128;
}

function isDateTime(s: string): boolean {
  return DATE_TIME.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T')));
}

/** Whether a string value satisfies the format; true for unknown formats. */
export function checkFormat(format: string, v: string): boolean {
  switch (format) {
    case 'date-time': return isDateTime(v);
    case 'date': return DATE.test(v) && !Number.isNaN(Date.parse(v));
    case 'byte': return BYTE.test(v);
    case 'uuid': return UUID.test(v);
    case 'ipv4': return IPV4.test(v);
    case 'ipv6': return isIPv6(v);
    case 'cidr': return isCIDR(v);
    case 'hostname': return HOSTNAME.test(v);
    case 'duration': return DURATION.test(v);
    case 'email': return EMAIL.test(v);
    default: return true;
  }
}
