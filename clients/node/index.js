'use strict';
/**
 * cardarena-bot: write a cardarena bot in Node.js.
 *
 *     const { run } = require('cardarena-bot');   // or require('<clone>/clients/node')
 *     run((decision) => Math.floor(Math.random() * decision.actions.length));
 *
 * `run(decide, options)` opens the one stream the protocol wants (cardarena.v1.Referee/Play,
 * metadata "authorization: Bearer <token>"), says Hello, and calls `decide(decision)` for every
 * decision of every seat the bot holds, in any number of concurrent matches. `decide` returns
 * the index of its choice in `decision.actions`, or a Promise of it. If it throws (or returns
 * no integer) nothing is answered and the referee plays the seat's default action at the
 * deadline (a fault).
 *
 * A decision is a plain object with the protocol's own field names:
 *   match_id, seat, decision_id, game, time_left, bank_left  as in the Decision message;
 *   view     the seat's view: the JSON of the game's view message (e.g. SixthCardView), every
 *            scalar field present, the same shape the Python SDK and the engines give;
 *   actions  the legal actions, each the JSON of the game's action message, e.g. {play: "7♠"};
 *   labels   the actions in words, same order, e.g. "play 7♠";
 *   events   what the seat saw since its previous decision: each event's data
 *            ({type: "reveal", ...});
 *   raw      the decoded Decision message itself.
 *
 * Options (all optional):
 *   address     HOST:PORT of the referee; default CARDARENA_ADDRESS, else 127.0.0.1:50051
 *   token       the bot's token; default CARDARENA_TOKEN
 *               (--address A and --token T on the bot's command line override both)
 *   games       game ids the bot plays on the ladders (Hello.games); default CARDARENA_GAMES
 *               (a comma list, as `cardarena bot connect --game` sets it), else every game
 *   maxMatches  ladder matches at once at most (Hello.max_matches; 0: the server's limit);
 *               default CARDARENA_MAX_MATCHES, else 0
 *   maxMatchesPerHour  ladder matches an hour at most, started evenly spread
 *               (Hello.max_matches_per_hour; 0: no limit of its own);
 *               default CARDARENA_MAX_MATCHES_PER_HOUR, else 0
 *   onStart(m), onEnd(m), onNotice(n)   MatchStart, MatchEnd and Notice messages as plain objects
 *               (Struct fields such as options already turned into plain JSON; MatchStart's
 *               deal_commitment, MatchEnd's seed and deal_salt as strings, "" when not sent)
 *   onDealMismatch(matchId, committed, computed)   called (before onEnd) when a match's revealed
 *               deal does not give the commitment its MatchStart carried (below)
 *   caFile      a PEM file of CA certificates: connect with TLS
 *   protoDir    where proto/ is; default ../../proto from this file, or CARDARENA_PROTO
 *   retrySeconds  how long to keep reconnecting after a lost connection (default 30)
 *   exitOnError true (default): print a fatal error (wrong token, no referee) and exit with
 *               code 1; false: reject the returned Promise instead
 *
 * `run` returns a Promise that resolves when the referee ends the stream for good.
 *
 * The deal: MatchStart.deal_commitment is the lowercase hex SHA-256 of the UTF-8 string
 * "cardarena-deal:v1:{game}:{match_id}:{seed}:{salt}" (seed in decimal, salt 32 hex digits),
 * fixed before the first decision; MatchEnd reveals seed and deal_salt once the deal is spent
 * ("" before: another rotation of a duplicate set still plays it, or an aborted match). `run`
 * checks every revealed deal itself: on a mismatch it writes a loud line to standard error (the
 * match, the commitment received and the one computed) and calls onDealMismatch; on a match it
 * says nothing, or one line with CARDARENA_LOG=INFO (or DEBUG). `dealCommitment(game, matchId,
 * seed, salt)` computes a commitment by hand.
 */

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const grpc = requirePackage('@grpc/grpc-js');
const protoLoader = requirePackage('@grpc/proto-loader');

/** require(name), or an error saying how to install the helper's packages. */
function requirePackage(name) {
  try {
    return require(name);
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;
    throw new Error(`cannot find ${name}: install the cardarena helper's packages once: \`make examples\` in the `
      + `clone (or \`npm ci\` in ${__dirname})`);
  }
}

const CLIENT = 'cardarena-node/0.1';
const LOADER_OPTIONS = {
  keepCase: true, // the proto's snake_case field names, as on every other side of the protocol
  longs: Number, // decision ids are uint64; they stay far below 2^53
  enums: String, // Notice.kind as its name, e.g. "LATE"
  defaults: true, // every scalar field present, as the engines' JSON
  oneofs: false, // no virtual "which member is set" keys in the objects
};
const DECISION_FIELDS = new Set(['match_id', 'seat', 'decision_id', 'game', 'time_left', 'bank_left',
  'events', 'actions']);

let cachedStub = null;

/** Load proto/ at run time and return the Referee service constructor. */
function loadReferee(protoDir) {
  const dir = protoDir || process.env.CARDARENA_PROTO || path.resolve(__dirname, '..', '..', 'proto');
  if (cachedStub && cachedStub.dir === dir) return cachedStub.Referee;
  const file = path.join(dir, 'cardarena', 'v1', 'referee.proto');
  if (!fs.existsSync(file)) {
    throw new Error(`cannot find ${file}: pass {protoDir} or set CARDARENA_PROTO to the cardarena proto/ folder`);
  }
  const definition = protoLoader.loadSync('cardarena/v1/referee.proto', { ...LOADER_OPTIONS, includeDirs: [dir] });
  const Referee = grpc.loadPackageDefinition(definition).cardarena.v1.Referee;
  cachedStub = { dir, Referee };
  return Referee;
}

/** google.protobuf.Value → plain JSON (protobufjs names the members in either case). */
function valueToJson(v) {
  if (v == null) return null;
  const pick = (a, b) => (v[a] !== undefined ? v[a] : v[b]);
  const num = pick('numberValue', 'number_value');
  if (num !== undefined && num !== null) return num;
  const str = pick('stringValue', 'string_value');
  if (str !== undefined && str !== null) return str;
  const bool = pick('boolValue', 'bool_value');
  if (bool !== undefined && bool !== null) return bool;
  const st = pick('structValue', 'struct_value');
  if (st) return structToJson(st);
  const list = pick('listValue', 'list_value');
  if (list) return (list.values || []).map(valueToJson);
  return null;
}

/** google.protobuf.Struct → plain object. */
function structToJson(s) {
  const out = {};
  if (!s || !s.fields) return out;
  for (const [k, v] of Object.entries(s.fields)) out[k] = valueToJson(v);
  return out;
}

/** A decoded game message as plain JSON: drops unset (null) message fields, recursively. */
function plain(value) {
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = plain(v);
    return out;
  }
  return value;
}

/** The member set in a oneof of game messages: the one key outside `known` holding an object. */
function oneofMember(msg, known) {
  for (const [k, v] of Object.entries(msg)) {
    if (!known.has(k) && v && typeof v === 'object' && !Array.isArray(v)) return v;
  }
  return {};
}

function eventJson(ev) {
  const data = ev.data_json ? JSON.parse(ev.data_json) : {};
  if (data.type === undefined) data.type = ev.type;
  return data;
}

/** The decision handed to decide(): see the module comment. */
function makeDecision(raw) {
  const actions = raw.actions || [];
  return {
    match_id: raw.match_id,
    seat: raw.seat,
    decision_id: raw.decision_id,
    game: raw.game,
    time_left: raw.time_left,
    bank_left: raw.bank_left,
    view: plain(oneofMember(raw, DECISION_FIELDS)),
    actions: actions.map((a) => plain(oneofMember(a, new Set(['label'])))),
    labels: actions.map((a) => a.label),
    events: (raw.events || []).map(eventJson),
    raw,
  };
}

function matchStartJson(m) {
  return { ...plain(m), options: structToJson(m.options), deal_commitment: m.deal_commitment || '' };
}

function matchEndJson(m) {
  return { ...plain(m), events: (m.events || []).map(eventJson), seed: m.seed || '', deal_salt: m.deal_salt || '' };
}

const DEAL_PREFIX = 'cardarena-deal:v1';
const DEALS_KEPT = 4096; // matches remembered at once at most (one that never ends is forgotten, oldest first)

/** The seed in decimal: a whole number, a BigInt, or its decimal text (MatchEnd.seed). */
function decimalSeed(seed) {
  if (typeof seed === 'bigint') return seed.toString();
  if (typeof seed === 'number' && Number.isSafeInteger(seed)) return String(seed);
  if (typeof seed === 'string' && /^[+-]?[0-9]+$/.test(seed.trim())) return BigInt(seed.trim()).toString();
  throw new TypeError(`the seed must be a whole number in decimal, not ${JSON.stringify(String(seed))}`);
}

/** A deal's commitment: lowercase hex SHA-256 of "cardarena-deal:v1:{game}:{match_id}:{seed}:{salt}". */
function dealCommitment(game, matchId, seed, salt) {
  const text = `${DEAL_PREFIX}:${game}:${matchId}:${decimalSeed(seed)}:${salt}`;
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

function infoLogging() {
  return /^(info|debug)$/i.test(process.env.CARDARENA_LOG || '');
}

/**
 * Remembers each match's game and commitment at MatchStart, checks the revealed deal at
 * MatchEnd and forgets the match. end() returns true (verified), false (a mismatch: logged,
 * onDealMismatch called) or null (nothing to check). Neither method throws.
 */
class DealCheck {
  constructor(onDealMismatch) {
    this.onDealMismatch = onDealMismatch;
    this.matches = new Map(); // match id -> {game, committed}, in insertion order
  }

  start(m) {
    try {
      if (!m.deal_commitment) return; // an older referee: nothing to check
      const known = this.matches.get(m.match_id);
      if (known) {
        if (known.committed !== m.deal_commitment || known.game !== m.game) {
          console.error(`cardarena bot: ERROR match ${m.match_id}: a second MatchStart with another deal `
            + `commitment (${m.deal_commitment}, first ${known.committed}); the first one is kept`);
        }
        return;
      }
      this.matches.set(m.match_id, { game: m.game, committed: m.deal_commitment });
      while (this.matches.size > DEALS_KEPT) this.matches.delete(this.matches.keys().next().value);
    } catch (e) {
      console.error('cardarena bot: the deal check failed on the start of a match:', e);
    }
  }

  end(m) {
    try {
      const known = this.matches.get(m.match_id);
      this.matches.delete(m.match_id);
      const seed = m.seed || '';
      const salt = m.deal_salt || '';
      if (!known || (!seed && !salt)) return null; // no commitment, or the deal not revealed yet
      let computed;
      if (!seed || !salt) computed = '(nothing: the seed or the salt is missing)';
      else {
        try {
          computed = dealCommitment(known.game, m.match_id, seed, salt);
        } catch (e) {
          computed = `(nothing: the seed ${JSON.stringify(seed)} is not a decimal number)`;
        }
      }
      if (computed === known.committed) {
        if (infoLogging()) console.error(`cardarena bot: match ${m.match_id}: the deal verified against its commitment`);
        return true;
      }
      console.error(`cardarena bot: ERROR match ${m.match_id}: THE DEAL DOES NOT MATCH ITS COMMITMENT: the referee `
        + `committed to ${known.committed} before play; the revealed seed ${JSON.stringify(seed)} and salt `
        + `${JSON.stringify(salt)} give ${computed} (sha256 of ${DEAL_PREFIX}:{game}:{match_id}:{seed}:{salt}, `
        + `game ${JSON.stringify(known.game)}): the deal may have been changed after the match started`);
      if (this.onDealMismatch) {
        try {
          Promise.resolve(this.onDealMismatch(m.match_id, known.committed, computed)).catch((e) => {
            console.error(`cardarena bot: onDealMismatch failed for match ${m.match_id}:`, e);
          });
        } catch (e) {
          console.error(`cardarena bot: onDealMismatch threw for match ${m.match_id}:`, e);
        }
      }
      return false;
    } catch (e) {
      console.error('cardarena bot: the deal check failed on the end of a match:', e);
      return null;
    }
  }
}

function argOverride(flag) {
  const argv = process.argv.slice(2);
  const i = argv.indexOf(flag);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : undefined;
}

/** The games of CARDARENA_GAMES (a comma list; none: every game). */
function envGames() {
  return (process.env.CARDARENA_GAMES || '').split(',').map((g) => g.trim()).filter((g) => g);
}

/** A whole number from the environment variable `name` (0 unless it is one). */
function envCount(name) {
  const text = process.env[name] || '';
  return /^[0-9]+$/.test(text) ? Number(text) : 0;
}

class BotError extends Error {}

const RETRY_CODES = new Set([grpc.status.UNAVAILABLE, grpc.status.CANCELLED, grpc.status.INTERNAL,
  grpc.status.UNKNOWN]);

/**
 * One RefereeMessage (decoded, as a stream's 'data' gives it) handed to the bot: decide() and
 * the answer through send(), the hooks of opts, the deal check of `deals` (a DealCheck).
 */
function handleMessage(msg, decide, opts, send, deals) {
  if (msg.decision) {
    const d = msg.decision;
    let choice;
    try {
      choice = decide(makeDecision(d));
    } catch (e) {
      console.error(`cardarena bot: decide() threw on decision ${d.decision_id} of match ${d.match_id}:`, e);
      return;
    }
    Promise.resolve(choice).then((c) => {
      if (!Number.isInteger(c)) {
        console.error(`cardarena bot: decide() returned ${c}, not an index; no answer sent`);
        return;
      }
      send({ answer: { match_id: d.match_id, seat: d.seat, decision_id: d.decision_id, choice: c } });
    }, (e) => {
      console.error(`cardarena bot: decide() failed on decision ${d.decision_id} of match ${d.match_id}:`, e);
    });
  } else if (msg.match_start) {
    deals.start(msg.match_start);
    if (opts.onStart) opts.onStart(matchStartJson(msg.match_start));
  } else if (msg.match_end) {
    deals.end(msg.match_end);
    if (opts.onEnd) opts.onEnd(matchEndJson(msg.match_end));
  } else if (msg.notice) {
    if (opts.onNotice) opts.onNotice(plain(msg.notice));
    else console.error(`cardarena bot: notice ${msg.notice.kind}: ${msg.notice.message}`);
  }
}

/** One connection: resolves 'done' when the referee closes the stream, 'retry' on a lost one. */
function connectOnce(Referee, address, token, decide, opts, onAlive, deals) {
  return new Promise((resolve, reject) => {
    const creds = opts.caFile
      ? grpc.credentials.createSsl(fs.readFileSync(opts.caFile))
      : grpc.credentials.createInsecure();
    const client = new Referee(address, creds);
    const md = new grpc.Metadata();
    md.set('authorization', `Bearer ${token}`);
    const call = client.Play(md);
    let open = true;
    const send = (msg) => {
      if (open) call.write(msg);
    };

    call.on('data', (msg) => {
      onAlive();
      handleMessage(msg, decide, opts, send, deals);
    });
    call.on('error', () => {}); // the outcome arrives as 'status'
    call.on('status', (status) => {
      open = false;
      client.close();
      if (status.code === grpc.status.OK) resolve('done');
      else if (status.code === grpc.status.UNAUTHENTICATED || status.code === grpc.status.PERMISSION_DENIED) {
        reject(new BotError(`the referee refused the token: ${status.details}`));
      } else if (RETRY_CODES.has(status.code)) resolve('retry');
      else reject(new BotError(`referee error ${status.code}: ${status.details}`));
    });
    send({ hello: { client: opts.client || CLIENT, games: opts.games, max_matches: opts.maxMatches,
                     max_matches_per_hour: opts.maxMatchesPerHour } });
  });
}

/** Play as `decide` until the referee closes the stream: see the module comment. */
async function run(decide, options = {}) {
  const opts = { retrySeconds: 30, exitOnError: true, games: envGames(), maxMatches: envCount('CARDARENA_MAX_MATCHES'),
                 maxMatchesPerHour: envCount('CARDARENA_MAX_MATCHES_PER_HOUR'), ...options };
  const fn = typeof decide === 'function' ? decide : decide.decide.bind(decide);
  const address = argOverride('--address') || opts.address || process.env.CARDARENA_ADDRESS || '127.0.0.1:50051';
  const token = argOverride('--token') || opts.token || process.env.CARDARENA_TOKEN || '';
  try {
    if (!token) throw new BotError('no token (set CARDARENA_TOKEN or pass --token)');
    const Referee = loadReferee(opts.protoDir);
    const deals = new DealCheck(opts.onDealMismatch); // across reconnects, as the matches are
    let lastOk = Date.now();
    let backoff = 100;
    for (;;) {
      const outcome = await connectOnce(Referee, address, token, fn, opts, () => {
        lastOk = Date.now();
        backoff = 100;
      }, deals);
      if (outcome === 'done') return;
      if (Date.now() - lastOk > opts.retrySeconds * 1000) {
        throw new BotError(`no referee at ${address} for ${opts.retrySeconds} s`);
      }
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, 2000);
    }
  } catch (e) {
    if (!opts.exitOnError) throw e;
    console.error(`cardarena bot: ${e.message}`);
    process.exit(1);
  }
}

module.exports = {
  run, makeDecision, structToJson, loadReferee, BotError, CLIENT, dealCommitment, DealCheck, handleMessage,
};
