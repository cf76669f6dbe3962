/**
 * The fault campaign, outside the test suite (npm run campaign -- …):
 *
 *   --runs N            runs (default 10); seeds seed … seed + N - 1
 *   --repeat R          run each seed R times (default 1): the plan is the
 *                       same, the timing not, so a timing-bound violation
 *                       can be met again with the current log lines
 *   --seed S            the first seed (default: from the clock, printed)
 *   --nodes K           nodes per run (default 5)
 *   --daemon-sets D     DaemonSets per run (default 2)
 *   --fault-seconds F   faults and workload per run (default 20)
 *   --converge-seconds  the liveness bound after faults stop (default 120)
 *   --parallel P        test beds running runs side by side (default 1), per process
 *   --processes N       spread the seeds over N processes, each with its own
 *                       --parallel beds (default 1): one event loop per few beds
 *   --minutes M         start no run after M minutes
 *   --shrink R          re-runs spent shrinking a violating run (default 6)
 *   --windows A-B       fault windows per run (default 4-10)
 *   --own-kind P        the share of runs (0–1, drawn per seed) whose DaemonSets
 *                       are AdvancedDaemonSets with Kruise's rollout controls
 *                       (default 0.5; 0 replays seeds run before it existed)
 *   --on-delete P       the share of runs (0–1, drawn per seed from a stream of
 *                       its own) of native OnDelete DaemonSets opted in with the
 *                       apps.dsr.dev/rollout annotation, in the apps/v1+OnDelete
 *                       mode with kube-controller-manager's DaemonSet controller
 *                       on (default 0: every other seed replays unchanged)
 *   --clusters C        clusters one stack manages in each run (default 1): API
 *                       servers of their own on the bed's etcd, each with its own
 *                       kind, API-side faults and workload; the shared parts'
 *                       faults hit them all
 *   --cost-factor X     also run each seed without faults; its cost × X bounds the run's
 *   --max-warm-up-wall S  fail when a run of the last warm-up round took
 *                       longer than S seconds (default 60; 0: never): the
 *                       machine is too loaded for the beds asked for
 *   --plant BUG         plant a bug the checker must find (stale-cache,
 *                       on-delete-overspend, on-delete-ignore-partition)
 *   --out FILE          the JSON summary (default .build/campaign/last.json)
 *
 * Exit code 1 when any run broke an invariant; each violation is printed
 * with its seed, fault plan, workload and the history around it, and
 * re-running that seed (--runs 1 --seed S) replays the same plan.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startCampaignBed } from './campaign-bed.js';
import type { PlantedBug, RunResult } from './campaign-run.js';
import { summarise, summaryMarkdown } from './campaign-summary.js';
import { describePlan } from './fault-plan.js';
import { runInProcesses, seedShares } from './process-split.js';
import { runCampaign, type ShrunkRun } from './run-campaign.js';
import { PLANTED_BUGS } from './run-types.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    repeat: { type: 'string', default: '1' },
    seed: { type: 'string' },
    nodes: { type: 'string', default: '5' },
    'daemon-sets': { type: 'string', default: '2' },
    'fault-seconds': { type: 'string', default: '20' },
    'converge-seconds': { type: 'string', default: '120' },
    parallel: { type: 'string', default: '1' },
    processes: { type: 'string', default: '1' },
    minutes: { type: 'string' },
    shrink: { type: 'string', default: '6' },
    windows: { type: 'string', default: '4-10' },
    plant: { type: 'string' },
    'cost-factor': { type: 'string' },
    'own-kind': { type: 'string', default: '0.5' },
    'on-delete': { type: 'string', default: '0' },
    clusters: { type: 'string', default: '1' },
    'max-warm-up-wall': { type: 'string', default: '60' },
    out: { type: 'string', default: '.build/campaign/last.json' },
  },
});

const count = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 0) {
    console.error(
      `error: --${name} must be a whole number, got ${values[name]}`
    );
    process.exit(2);
  }
  return n;
};

// The stacks' EMF lines would flood the report.
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
const warn = console.warn;
console.warn = (...args: unknown[]) => {
  if (!String(args[0]).startsWith('No application metrics')) warn(...args);
};

/** Parses --windows MIN-MAX. */
const windowRange = (text: string): [number, number] => {
  const [low, high] = text.split('-').map(Number);
  if (
    !Number.isInteger(low) ||
    !Number.isInteger(high) ||
    (low ?? 0) > (high ?? 0)
  ) {
    console.error(`error: --windows wants MIN-MAX, got ${text}`);
    process.exit(2);
  }
  return [low ?? 0, high ?? 0];
};

/** Parses --own-kind P or --on-delete P, a share from 0 to 1. */
const share = (text: string, flag = '--own-kind'): number => {
  const p = Number(text);
  if (!(p >= 0 && p <= 1)) {
    console.error(`error: ${flag} wants a share from 0 to 1, got ${text}`);
    process.exit(2);
  }
  return p;
};

/** Parses --plant. */
const plantOf = (text: string): PlantedBug => {
  const known = PLANTED_BUGS.find((b) => b === text);
  if (known === undefined) {
    console.error(
      `error: --plant knows ${PLANTED_BUGS.join(', ')}, got ${text}`
    );
    process.exit(2);
  }
  return known;
};

/**
 * Prints the summary and each violation (shrunk, with its history), writes
 * the JSON summary; returns the exit code.
 */
const report = (results: RunResult[], shrunk: ShrunkRun[]): number => {
  let exitCode = 0;
  const summary = summarise(results);
  console.log(`\n${summaryMarkdown(summary)}\n`);
  for (const { result, reruns } of shrunk) {
    exitCode = 1;
    console.log(`## seed ${result.seed} (shrunk in ${reruns} re-runs)`);
    for (const v of result.violations)
      console.log(`- ${v.invariant}: ${v.detail}`);
    console.log('fault plan:');
    for (const line of describePlan(result.plan)) console.log(`  ${line}`);
    console.log(
      `workload: ${result.actions.map((a) => `${(a.atMs / 1000).toFixed(1)} s ${a.kind}`).join(', ')}`
    );
    console.log('history:');
    for (const h of result.history)
      console.log(`  ${h.atMs} ${h.kind} ${h.text}`);
  }
  if (summary.violations > 0 || summary.harnessErrors.length > 0) exitCode = 1;
  for (const r of results.filter((x) => x.error)) {
    console.log(`## seed ${r.seed}: harness error\n${r.error}`);
  }
  mkdirSync(path.dirname(values.out), { recursive: true });
  writeFileSync(
    values.out,
    JSON.stringify({ summary, results, shrunk }, null, 2)
  );
  return exitCode;
};

const seed = values.seed === undefined ? Date.now() % 1_000_000 : count('seed');
const parallel = Math.max(1, count('parallel'));
const clusters = Math.max(1, count('clusters'));
const say = (line: string) =>
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

const processes = Math.max(1, count('processes'));
if (processes > 1) {
  say(
    `campaign: ${count('runs')} runs from seed ${seed} in ${processes} processes of ${parallel} test bed(s)`
  );
  const parts = await runInProcesses(
    fileURLToPath(import.meta.url),
    process.argv.slice(2),
    seedShares(count('runs'), seed, processes),
    (part) => values.out.replace(/(\.json)?$/, `.part${part}.json`)
  );
  const code = report(parts.results, parts.shrunk);
  if (parts.failed.length > 0) say(`parts ${parts.failed.join(', ')} failed`);
  say(`summary of ${parts.results.length} runs written to ${values.out}`);
  process.exit(parts.failed.length > 0 ? 1 : code);
}
say(
  `campaign: ${count('runs')} runs from seed ${seed}, ${parallel} test bed(s)${clusters > 1 ? ` of ${clusters} clusters` : ''}`
);
const beds = await Promise.all(
  Array.from({ length: parallel }, () => startCampaignBed(clusters))
);
say('test beds up');
let exitCode = 0;
try {
  const { results, shrunk } = await runCampaign(
    beds,
    {
      runs: count('runs'),
      repeat: Math.max(1, count('repeat')),
      seed,
      nodes: count('nodes'),
      daemonSets: count('daemon-sets'),
      faultMs: count('fault-seconds') * 1_000,
      convergeTimeoutMs: count('converge-seconds') * 1_000,
      shrinkBudget: count('shrink'),
      warmUpRounds: 2,
      ...(count('max-warm-up-wall') > 0
        ? { maxWarmUpWallMs: count('max-warm-up-wall') * 1_000 }
        : {}),
      windows: windowRange(values.windows),
      ownKindShare: share(values['own-kind']),
      onDeleteShare: share(values['on-delete'], '--on-delete'),
      ...(clusters > 1 ? { clusters } : {}),
      ...(values['cost-factor'] === undefined
        ? {}
        : { costFactor: Number(values['cost-factor']) }),
      ...(values.plant === undefined ? {} : { plant: plantOf(values.plant) }),
      ...(values.minutes === undefined
        ? {}
        : { deadlineMs: count('minutes') * 60_000 }),
    },
    say
  );
  exitCode = report(results, shrunk);
  say(`summary written to ${values.out}`);
} finally {
  await Promise.all(beds.map((b) => b.stop()));
}
process.exit(exitCode);
