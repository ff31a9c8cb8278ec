// UTC time stamps formatted from the Date's UTC fields. Date.prototype.toISOString, toUTCString and
// toString make V8 set up its local time zone through ICU, which touches ~0.6 MiB of ICU's data in the
// node binary; those pages then stay in the process's RSS. The registration agent stamps every log
// line, lease renewal and condition, so it formats here instead and keeps that memory out.

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

const two = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** Exactly what `new Date(ms).toISOString()` returns (`2026-12-06T19:20:00.123Z`), RangeError included. */
export function isoUtc(ms: number): string {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  // Invalid dates (RangeError) and years beyond four digits (±YYYYYY) keep the built-in's answer.
  if (!(y >= 0 && y <= 9999)) return d.toISOString();
  return (
    `${String(y).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}` +
    `T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}Z`
  );
}

/** An HTTP Date header value (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), as Node's own. */
export function httpDate(ms: number): string {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  if (!(y >= 0 && y <= 9999)) return d.toUTCString();
  return `${DAYS[d.getUTCDay()]!}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]!} ${String(y).padStart(4, '0')} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} GMT`;
}
