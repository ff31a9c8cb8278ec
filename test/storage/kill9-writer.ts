// Child process for kill9.test.ts: writes to the store in a loop and prints each acknowledged
// revision ("ACK <rev> <key>") only after the store call has returned. Never returns on its own.
import { openSqliteStore } from '../../src/apiserver/storage/sqlite-store.js';

const path = process.argv[2];
if (!path) {
  process.stderr.write('usage: kill9-writer.ts <db path>\n');
  process.exit(2);
}
const store = openSqliteStore({ path });
process.stdout.write('READY\n');
let i = 0;
const step = (): void => {
  for (let n = 0; n < 20; n++, i++) {
    const key = `/core/configmaps/ns/o${i % 50}`;
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `o${i % 50}`, namespace: 'ns' }, data: { i: String(i) } };
    const res = store.get(key) ? store.update(key, obj) : store.create(key, obj);
    if (i % 7 === 6) {
      const del = store.delete(key);
      process.stdout.write(`ACK ${res.revision} ${key} ${i}\nACK ${del.revision} ${key} DELETED\n`);
    } else {
      process.stdout.write(`ACK ${res.revision} ${key} ${i}\n`);
    }
  }
  setImmediate(step);
};
step();
