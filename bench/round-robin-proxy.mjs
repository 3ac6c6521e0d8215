// A small round-robin TCP load balancer for bench/nodes.ts, in a process of its own (so that its CPU
// time is measured apart, and it does not share an event loop with the load generator). Each argument
// is one listener: a comma-separated list of upstream ports on 127.0.0.1. Each connection a listener
// accepts goes to its next upstream in turn and is piped both ways as it is (HTTP keep-alive
// connections stay on one node, as behind a TCP balancer). Prints `listening PORT PORT…` (one port a
// listener, in order) once every listener is up. Usage: node bench/round-robin-proxy.mjs 4001 4001,4002
// Started with an IPC channel, it answers any message with the requests sent to each upstream port so
// far, `{ requests: { PORT: count } }`: the ends of request heads (CRLF CRLF) it passed on, which is
// the number of requests where they carry no body (the benchmark's GETs).
import { Buffer } from 'node:buffer';
import net from 'node:net';

const groups = process.argv.slice(2).map((argument) => argument.split(',').map(Number));
if (
  groups.length === 0 ||
  groups.some((ports) => ports.some((port) => !Number.isInteger(port) || port <= 0))
) {
  console.error('usage: node bench/round-robin-proxy.mjs PORT[,PORT…] [PORT[,PORT…]…]');
  process.exit(2);
}

const HEAD_END = Buffer.from('\r\n\r\n');
/** Request heads passed to each upstream port so far. */
const requests = new Map();

function listen(ports) {
  let next = 0;
  const server = net.createServer((client) => {
    const port = ports[next++ % ports.length];
    const upstream = net.connect({ host: '127.0.0.1', port });
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    // The last 3 bytes of the previous chunk: a head's end may be cut between two chunks.
    let tail = Buffer.alloc(0);
    client.on('data', (chunk) => {
      const text = tail.length ? Buffer.concat([tail, chunk]) : chunk;
      let count = 0;
      for (let at = text.indexOf(HEAD_END); at !== -1; at = text.indexOf(HEAD_END, at + HEAD_END.length)) {
        count += 1;
      }
      if (count) requests.set(port, (requests.get(port) ?? 0) + count);
      tail = text.subarray(Math.max(0, text.length - (HEAD_END.length - 1)));
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server.address().port));
  });
}

const listening = [];
for (const ports of groups) listening.push(await listen(ports));
process.on('message', () => process.send?.({ requests: Object.fromEntries(requests) }));
process.on('SIGTERM', () => process.exit(0));
console.log(`listening ${listening.join(' ')}`);
