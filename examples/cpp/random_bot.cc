// A cardarena bot in C++ that plays any game by choosing a legal action at random.
//
// Build:  make -C examples/cpp        (Debian: apt-get install libgrpc++-dev protobuf-compiler-grpc pkg-config)
// Run:    CARDARENA_ADDRESS=127.0.0.1:50051 CARDARENA_TOKEN=... examples/cpp/build/random_bot
//         (--address HOST:PORT and --token T override the environment)
// or let the CLI start it:
//         cardarena play --game sixth-card --bot me=examples/cpp/build/random_bot --bot r="python examples/python/random_bot.py"
//
// The protocol (proto/cardarena/v1/referee.proto): open one bidirectional stream Referee.Play
// with "authorization: Bearer <token>" in the metadata, send a Hello, then answer every Decision
// with an Answer naming the index of the choice in Decision.actions. The typed view of the
// seat is in the Decision's `view` oneof (e.g. decision.sixth_card()), each action's typed form
// in Action's `action` oneof, its words in Action.label.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "cardarena/v1/referee.grpc.pb.h"

namespace v1 = cardarena::v1;

namespace {

std::string Setting(int argc, char** argv, const std::string& flag, const char* env, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (flag == argv[i]) return argv[i + 1];
  }
  const char* value = std::getenv(env);
  return value && *value ? value : fallback;
}

enum class Outcome { kDone, kRetry, kFatal };

// One connection: plays until the referee ends the stream.
// `alive` is set once the referee has sent anything.
Outcome PlayOnce(const std::string& address, const std::string& token, std::mt19937& rng, bool& alive) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = v1::Referee::NewStub(channel);
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + token);
  std::unique_ptr<grpc::ClientReaderWriter<v1::BotMessage, v1::RefereeMessage>> stream(stub->Play(&context));

  v1::BotMessage hello;
  hello.mutable_hello()->set_client("cardarena-cpp-example/0.1");
  stream->Write(hello);

  v1::RefereeMessage msg;
  while (stream->Read(&msg)) {
    alive = true;
    switch (msg.kind_case()) {
      case v1::RefereeMessage::kDecision: {
        const v1::Decision& d = msg.decision();
        if (d.actions_size() == 0) break;
        std::uniform_int_distribution<int> pick(0, d.actions_size() - 1);
        v1::BotMessage answer;
        v1::Answer* a = answer.mutable_answer();
        a->set_match_id(d.match_id());
        a->set_seat(d.seat());
        a->set_decision_id(d.decision_id());
        a->set_choice(pick(rng));  // the typed view would be d.sixth_card() etc. (d.view_case() says which)
        stream->Write(answer);      // a failed write shows up as the end of Read below
        break;
      }
      case v1::RefereeMessage::kWelcome:
        std::cerr << "connected as " << msg.welcome().bot() << " to cardarena " << msg.welcome().server_version() << "\n";
        break;
      case v1::RefereeMessage::kNotice:
        std::cerr << "notice: " << msg.notice().message() << "\n";
        break;
      default:  // match_start, match_end: nothing to do for a random bot
        break;
    }
  }
  stream->WritesDone();
  grpc::Status status = stream->Finish();
  if (status.ok()) return Outcome::kDone;
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED) {
    std::cerr << "cardarena bot: the referee refused the token: " << status.error_message() << "\n";
    return Outcome::kFatal;
  }
  std::cerr << "connection lost (" << status.error_code() << ": " << status.error_message() << ")\n";
  return status.error_code() == grpc::StatusCode::UNAVAILABLE || status.error_code() == grpc::StatusCode::CANCELLED ||
                 status.error_code() == grpc::StatusCode::INTERNAL || status.error_code() == grpc::StatusCode::UNKNOWN
             ? Outcome::kRetry
             : Outcome::kFatal;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string address = Setting(argc, argv, "--address", "CARDARENA_ADDRESS", "127.0.0.1:50051");
  const std::string token = Setting(argc, argv, "--token", "CARDARENA_TOKEN", "");
  if (token.empty()) {
    std::cerr << "cardarena bot: no token (set CARDARENA_TOKEN or pass --token)\n";
    return 1;
  }
  std::mt19937 rng(std::random_device{}());
  // Reconnect after a lost connection for up to 30 s (the referee re-sends pending decisions).
  auto last_ok = std::chrono::steady_clock::now();
  auto backoff = std::chrono::milliseconds(100);
  for (;;) {
    bool alive = false;
    Outcome outcome = PlayOnce(address, token, rng, alive);
    if (alive) {
      last_ok = std::chrono::steady_clock::now();
      backoff = std::chrono::milliseconds(100);
    }
    switch (outcome) {
      case Outcome::kDone:
        return 0;
      case Outcome::kFatal:
        return 1;
      case Outcome::kRetry:
        break;
    }
    if (std::chrono::steady_clock::now() - last_ok > std::chrono::seconds(30)) {
      std::cerr << "cardarena bot: no referee at " << address << " for 30 s\n";
      return 1;
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
  }
}
