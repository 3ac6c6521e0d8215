// Preloaded into a measured Folio process (node --import ./bench/loop-monitor.mjs) by the
// under-writes bench: finds the moments its event loop did not turn for 20 ms or more, and tells
// whether the process was working meanwhile (CPU time ~ the gap: Folio's own work blocked the loop)
// or waiting: on the run queue (the machine ran others: /proc/self/schedstat's run delay of the main
// thread) or on the disk (a synchronous SQLite read: /proc/self/stat's block I/O delay, when the kernel
// accounts it).
// Writes them as JSON to LOOP_MONITOR_FILE when the process exits.
import fs from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setInterval } from 'node:timers';

const file = process.env.LOOP_MONITOR_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const blocks = [];
  const read = (path) => {
    try {
      return fs.readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  // Nanoseconds the main thread waited on a run queue; clock ticks (10 ms) of block I/O delay.
  const runDelay = () => Number(read('/proc/self/schedstat').split(' ')[1] ?? 0);
  const ioTicks = () => {
    const stat = read('/proc/self/stat');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[39] ?? 0);
  };
  let lastWall = performance.now();
  let lastCpu = process.cpuUsage();
  let lastRun = runDelay();
  let lastIo = ioTicks();
  const tick = setInterval(() => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const run = runDelay();
    const io = ioTicks();
    const gap = wall - lastWall;
    if (gap >= 25) {
      const cpuMs = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
      blocks.push({
        at: Date.now(),
        gapMs: Math.round(gap),
        cpuMs: Math.round(cpuMs),
        runQueueMs: Math.round((run - lastRun) / 1e6),
        ioWaitMs: (io - lastIo) * 10,
      });
      if (blocks.length > 2000) blocks.shift();
    }
    lastWall = wall;
    lastCpu = cpu;
    lastRun = run;
    lastIo = io;
  }, 5);
  tick.unref();
  process.on('exit', () => {
    histogram.disable();
    fs.writeFileSync(
      file,
      JSON.stringify({
        delayMs: {
          p50: histogram.percentile(50) / 1e6,
          p99: histogram.percentile(99) / 1e6,
          max: histogram.max / 1e6,
        },
        blocks,
      }),
    );
  });
}
