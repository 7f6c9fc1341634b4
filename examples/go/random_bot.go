// A cardarena bot in Go: a legal action at random in every game, and in Sixth Card a small
// heuristic (sixth_card.go). The Go counterpart of examples/cpp/random_bot.cc.
//
// Build:  make -C examples/go    (Debian 12: apt-get install golang-go golang-google-grpc-dev
//         golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev protoc-gen-go
//         protoc-gen-go-grpc protobuf-compiler)
// Run:    CARDARENA_ADDRESS=127.0.0.1:50051 CARDARENA_TOKEN=... examples/go/build/random_bot
//         (--address HOST:PORT and --token T override the environment; --random plays
//         Sixth Card at random too)
// or let the CLI start it:
//         cardarena play --game sixth-card --bot me=examples/go/build/random_bot --bot r="python examples/python/random_bot.py"
//
// The protocol (proto/cardarena/v1/referee.proto): open one bidirectional stream Referee.Play
// with "authorization: Bearer <token>" in the metadata, send a Hello, then answer every Decision
// with an Answer naming the index of the choice in Decision.Actions. The typed view of the seat
// is the Decision's View oneof (*cardarenav1.Decision_SixthCard etc.), each action's typed form
// the Action's Action oneof, its words Action.Label.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	cardarenav1 "cardarena/gen/go/cardarena/v1"
)

type outcome int

const (
	done outcome = iota
	retry
	fatal
)

func setting(value *string, env, fallback string) string {
	if *value != "" {
		return *value
	}
	if v := os.Getenv(env); v != "" {
		return v
	}
	return fallback
}

// choose returns the index of the action to play: the heuristic's in Sixth Card (unless
// playRandom), a random one otherwise.
func choose(d *cardarenav1.Decision, rng *rand.Rand, playRandom bool) int32 {
	if view, ok := d.View.(*cardarenav1.Decision_SixthCard); ok && !playRandom {
		if k, ok := chooseSixthCard(view.SixthCard, d.Actions); ok {
			return int32(k)
		}
	}
	return int32(rng.Intn(len(d.Actions)))
}

// playOnce plays on one connection until the referee ends the stream; alive is set once the
// referee has sent anything.
func playOnce(address, token string, rng *rand.Rand, playRandom bool, alive *bool) outcome {
	conn, err := grpc.Dial(address, grpc.WithInsecure())
	if err != nil {
		fmt.Fprintf(os.Stderr, "cardarena bot: cannot reach %s: %v\n", address, err)
		return fatal
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+token))
	defer cancel()
	stream, err := cardarenav1.NewRefereeClient(conn).Play(ctx)
	if err == nil {
		hello := &cardarenav1.Hello{Client: "cardarena-go-example/0.1"}
		err = stream.Send(&cardarenav1.BotMessage{Kind: &cardarenav1.BotMessage_Hello{Hello: hello}})
	}
	for err == nil {
		var msg *cardarenav1.RefereeMessage
		if msg, err = stream.Recv(); err != nil {
			break
		}
		*alive = true
		switch kind := msg.Kind.(type) {
		case *cardarenav1.RefereeMessage_Decision:
			d := kind.Decision
			if len(d.Actions) == 0 {
				break
			}
			answer := &cardarenav1.Answer{MatchId: d.MatchId, Seat: d.Seat, DecisionId: d.DecisionId, Choice: choose(d, rng, playRandom)}
			// a failed send shows up as the end of Recv
			_ = stream.Send(&cardarenav1.BotMessage{Kind: &cardarenav1.BotMessage_Answer{Answer: answer}})
		case *cardarenav1.RefereeMessage_Welcome:
			fmt.Fprintf(os.Stderr, "connected as %s to cardarena %s\n", kind.Welcome.Bot, kind.Welcome.ServerVersion)
		case *cardarenav1.RefereeMessage_Notice:
			fmt.Fprintf(os.Stderr, "notice: %s\n", kind.Notice.Message)
		default: // match_start, match_end: nothing to do
		}
	}
	if errors.Is(err, io.EOF) {
		return done
	}
	code := status.Code(err)
	if code == codes.Unauthenticated {
		fmt.Fprintf(os.Stderr, "cardarena bot: the referee refused the token: %s\n", status.Convert(err).Message())
		return fatal
	}
	fmt.Fprintf(os.Stderr, "connection lost (%s: %s)\n", code, status.Convert(err).Message())
	switch code {
	case codes.Unavailable, codes.Canceled, codes.Internal, codes.Unknown:
		return retry
	}
	return fatal
}

func main() {
	addressFlag := flag.String("address", "", "HOST:PORT of the referee (default: CARDARENA_ADDRESS, else 127.0.0.1:50051)")
	tokenFlag := flag.String("token", "", "the bot's token (default: CARDARENA_TOKEN)")
	playRandom := flag.Bool("random", false, "play Sixth Card at random too")
	flag.Parse()
	address := setting(addressFlag, "CARDARENA_ADDRESS", "127.0.0.1:50051")
	token := setting(tokenFlag, "CARDARENA_TOKEN", "")
	if token == "" {
		fmt.Fprintln(os.Stderr, "cardarena bot: no token (set CARDARENA_TOKEN or pass --token)")
		os.Exit(1)
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	// Reconnect after a lost connection for up to 30 s (the referee re-sends pending decisions).
	lastOK := time.Now()
	backoff := 100 * time.Millisecond
	for {
		alive := false
		switch playOnce(address, token, rng, *playRandom, &alive) {
		case done:
			return
		case fatal:
			os.Exit(1)
		}
		if alive {
			lastOK, backoff = time.Now(), 100*time.Millisecond
		}
		if time.Since(lastOK) > 30*time.Second {
			fmt.Fprintf(os.Stderr, "cardarena bot: no referee at %s for 30 s\n", address)
			os.Exit(1)
		}
		time.Sleep(backoff)
		if backoff *= 2; backoff > 2*time.Second {
			backoff = 2 * time.Second
		}
	}
}
