// The setup most API server suites share: one embedded server for the suite and a raw HTTPS client
// with the admin certificate, started before the first test and stopped after the last.
import { after, before } from 'node:test';
import { startTestApiServer, type TestApiServer, type TestApiServerOptions } from './embedded-server.js';
import { rawClient, type RawClient } from './raw-client.js';

/** Registers the suite's hooks; `ready` receives the server and client once started. */
export function useRawServer(ready: (srv: TestApiServer, raw: RawClient) => void, opts?: TestApiServerOptions): void {
  let srv: TestApiServer | undefined;
  let raw: RawClient | undefined;
  before(async () => {
    srv = await startTestApiServer(opts);
    raw = rawClient(srv.kubeConfig);
    ready(srv, raw);
  });
  after(async () => {
    raw?.close();
    await srv?.stop();
  });
}
