// A cardarena bot in TypeScript that plays any game by choosing a legal action at random, on the
// code `make proto-ts` generates (buf + ts-proto, for @grpc/grpc-js, in proto/gen/ts).
//
// Build:  make examples    (or: make proto-ts && cd examples/ts && npm ci && npm run build)
// Run:    CARDARENA_ADDRESS=127.0.0.1:50051 CARDARENA_TOKEN=... node examples/ts/dist/random_bot.js
//         (--address HOST:PORT and --token T override the environment)
// or let the CLI start it:
//         cardarena play --game sixth-card --bot me="node examples/ts/dist/random_bot.js" --bot r="python examples/python/random_bot.py"
//
// Names: the protos, clients/README.md, the Python SDK, the Node.js helper and the bridge say
// match_id, decision_id, time_left, sixth_card (snake_case); ts-proto gives the same fields in
// camelCase: decision.matchId, decision.decisionId, decision.timeLeft, the typed view
// decision.sixthCard (a SixthCardView: hand, rows, seats, ...), an action's action.sixthCard.
// Only the JSON inside Event.dataJson keeps the snake_case keys of the docs.
import { credentials, Metadata, status } from "@grpc/grpc-js";

import { RefereeClient, type RefereeMessage } from "./gen/cardarena/v1/referee";

function setting(flag: string, env: string, fallback: string): string {
  const i = process.argv.indexOf(flag);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  return process.env[env] || fallback;
}

const address = setting("--address", "CARDARENA_ADDRESS", "127.0.0.1:50051");
const token = setting("--token", "CARDARENA_TOKEN", "");
const games = (process.env.CARDARENA_GAMES || "").split(",").map((g) => g.trim()).filter((g) => g); // none: every game
const RETRY = new Set([status.UNAVAILABLE, status.CANCELLED, status.INTERNAL, status.UNKNOWN]);

interface Ended {
  code: status;
  details: string;
  heard: boolean; // the referee sent something on this stream
}

/** One stream: say hello, answer every decision, until the stream ends. */
function playOnce(client: RefereeClient): Promise<Ended> {
  return new Promise((resolve) => {
    const metadata = new Metadata();
    metadata.set("authorization", `Bearer ${token}`);
    const call = client.play(metadata);
    let heard = false;
    call.on("data", (msg: RefereeMessage) => {
      heard = true;
      const d = msg.decision;
      if (d && d.actions.length > 0) {
        // the typed view: d.sixthCard, d.unsorted, d.scout, d.scouting or d.threeThirteen
        const choice = Math.floor(Math.random() * d.actions.length);
        call.write({ answer: { matchId: d.matchId, seat: d.seat, decisionId: d.decisionId, choice } });
      } else if (msg.welcome) {
        console.error(`connected as ${msg.welcome.bot} to cardarena ${msg.welcome.serverVersion}`);
      } else if (msg.notice) {
        console.error(`notice: ${msg.notice.message}`);
      }
    });
    call.on("error", () => {}); // the outcome arrives as "status"
    call.on("status", (s) => resolve({ code: s.code, details: s.details, heard }));
    call.write({ hello: { client: "cardarena-ts-example/0.1", games, maxMatches: 0, maxMatchesPerHour: 0 } });
  });
}

async function main(): Promise<number> {
  if (!token) {
    console.error("cardarena bot: no token (set CARDARENA_TOKEN or pass --token)");
    return 1;
  }
  const client = new RefereeClient(address, credentials.createInsecure());
  // A lost stream: connect again and say hello again (the referee sends again the decisions
  // still waiting), backing off, for up to 30 s without a word from the referee.
  let lastHeard = Date.now();
  let backoff = 100;
  try {
    for (;;) {
      const { code, details, heard } = await playOnce(client);
      if (code === status.OK) return 0; // the referee ended the stream
      if (heard) {
        lastHeard = Date.now();
        backoff = 100;
      }
      // UNAUTHENTICATED: a wrong token; ABORTED: a newer stream of this bot replaced this one
      if (!RETRY.has(code)) {
        console.error(`cardarena bot: ${status[code]}: ${details}`);
        return 1;
      }
      if (Date.now() - lastHeard > 30_000) {
        console.error(`cardarena bot: no referee at ${address} for 30 s`);
        return 1;
      }
      console.error(`connection lost (${status[code]}: ${details}); connecting again`);
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, 2000);
    }
  } finally {
    client.close();
  }
}

main().then((code) => process.exit(code));
