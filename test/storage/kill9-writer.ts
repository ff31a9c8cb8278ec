// Child process for kill9.test.ts: writes to the store in a loop and prints each acknowledged
// revision ("ACK <rev> <key>") only once the store says it is durable: after the store call has
// returned and, with group commit, after whenDurable() for the batch has resolved (as the HTTP
// layer does before answering). Never returns on its own.
// Usage: kill9-writer.ts <db path> [group|per-commit]
import { openSqliteStore } from '../../src/apiserver/storage/sqlite-store.js';

const path = process.argv[2];
const durability = process.argv[3] ?? 'group';
if (!path || (durability !== 'group' && durability !== 'per-commit')) {
  process.stderr.write('usage: kill9-writer.ts <db path> [group|per-commit]\n');
  process.exit(2);
}
const store = openSqliteStore({ path, durability });
process.stdout.write('READY\n');
let i = 0;
const step = async (): Promise<void> => {
  const acks: string[] = [];
  let last = 0;
  for (let n = 0; n < 20; n++, i++) {
    const key = `/core/configmaps/ns/o${i % 50}`;
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `o${i % 50}`, namespace: 'ns' }, data: { i: String(i) } };
    const res = store.get(key) ? store.update(key, obj) : store.create(key, obj);
    acks.push(`ACK ${res.revision} ${key} ${i}\n`);
    last = res.revision;
    if (i % 7 === 6) {
      const del = store.delete(key);
      acks.push(`ACK ${del.revision} ${key} DELETED\n`);
      last = del.revision;
    }
  }
  await store.whenDurable(last);
  process.stdout.write(acks.join(''));
  setImmediate(() => void step());
};
void step();
