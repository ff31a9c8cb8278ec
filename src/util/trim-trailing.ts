// Removing a run of one character from the end of a string. A regex such as /\/+$/ looks like
// this but is quadratic: it retries the run from every position of a long run that is not at the
// end, so a request path of 16 KB of slashes blocked the event loop for a second.

/** `s` without the trailing run of `ch` (one UTF-16 unit), in time linear in the run. */
export function trimTrailing(s: string, ch: string): string {
  const code = ch.charCodeAt(0);
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === code) end--;
  return end === s.length ? s : s.slice(0, end);
}
