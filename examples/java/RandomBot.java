// A cardarena bot in Java that plays any game by choosing a legal action at random.
//
// Build:  make -C examples/java    (Debian 12: apt-get install default-jdk-headless protobuf-compiler
//         protobuf-compiler-grpc-java-plugin libgrpc-java libprotobuf-java libnetty-java
//         libperfmark-java libguava-java libgeronimo-annotation-1.3-spec-java)
// Run:    CARDARENA_ADDRESS=127.0.0.1:50051 CARDARENA_TOKEN=... examples/java/build/random_bot
//         (--address HOST:PORT and --token T override the environment)
// or let the CLI start it:
//         cardarena play --game sixth-card --bot me=examples/java/build/random_bot --bot r="python examples/python/random_bot.py"
//
// The protocol (proto/cardarena/v1/referee.proto): open one bidirectional stream Referee.Play
// with "authorization: Bearer <token>" in the metadata, send a Hello, then answer every Decision
// with an Answer naming the index of the choice in Decision.actions. Without java_package
// options in the protos, protoc puts the messages of referee.proto in cardarena.v1.RefereeOuterClass
// (the typed view: decision.getSixthCard() etc., decision.getViewCase() says which).
import cardarena.v1.RefereeGrpc;
import cardarena.v1.RefereeOuterClass.Answer;
import cardarena.v1.RefereeOuterClass.BotMessage;
import cardarena.v1.RefereeOuterClass.Decision;
import cardarena.v1.RefereeOuterClass.Hello;
import cardarena.v1.RefereeOuterClass.RefereeMessage;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.util.EnumSet;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

public final class RandomBot {
  private static final EnumSet<Status.Code> RETRY =
      EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.CANCELLED, Status.Code.INTERNAL, Status.Code.UNKNOWN);

  private static String setting(String[] args, String flag, String env, String fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(flag)) return args[i + 1];
    }
    String value = System.getenv(env);
    return value != null && !value.isEmpty() ? value : fallback;
  }

  /** One connection: plays until the referee ends the stream; returns how it ended. */
  private static Status playOnce(String address, String token, Random random, boolean[] alive) throws Exception {
    ManagedChannel channel = ManagedChannelBuilder.forTarget(address).usePlaintext().build();
    try {
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
      RefereeGrpc.RefereeStub stub =
          RefereeGrpc.newStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
      CompletableFuture<Status> ended = new CompletableFuture<>();
      Object lock = new Object();
      @SuppressWarnings("unchecked")
      StreamObserver<BotMessage>[] out = new StreamObserver[1];
      synchronized (lock) {
        out[0] = stub.play(new StreamObserver<RefereeMessage>() {
          @Override public void onNext(RefereeMessage msg) {
            alive[0] = true;
            switch (msg.getKindCase()) {
              case DECISION: {
                Decision d = msg.getDecision();
                if (d.getActionsCount() == 0) break;
                Answer answer = Answer.newBuilder().setMatchId(d.getMatchId()).setSeat(d.getSeat())
                    .setDecisionId(d.getDecisionId()).setChoice(random.nextInt(d.getActionsCount())).build();
                synchronized (lock) {
                  out[0].onNext(BotMessage.newBuilder().setAnswer(answer).build());
                }
                break;
              }
              case WELCOME:
                System.err.println("connected as " + msg.getWelcome().getBot() + " to cardarena "
                    + msg.getWelcome().getServerVersion());
                break;
              case NOTICE:
                System.err.println("notice: " + msg.getNotice().getMessage());
                break;
              default:  // match_start, match_end: nothing to do for a random bot
                break;
            }
          }
          @Override public void onError(Throwable t) { ended.complete(Status.fromThrowable(t)); }
          @Override public void onCompleted() { ended.complete(Status.OK); }
        });
        out[0].onNext(BotMessage.newBuilder().setHello(Hello.newBuilder().setClient("cardarena-java-example/0.1")).build());
      }
      Status status = ended.get();
      synchronized (lock) {
        if (status.isOk()) out[0].onCompleted();
      }
      return status;
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  public static void main(String[] args) throws Exception {
    String address = setting(args, "--address", "CARDARENA_ADDRESS", "127.0.0.1:50051");
    String token = setting(args, "--token", "CARDARENA_TOKEN", "");
    if (token.isEmpty()) {
      System.err.println("cardarena bot: no token (set CARDARENA_TOKEN or pass --token)");
      System.exit(1);
    }
    Random random = new Random();
    // Reconnect after a lost connection for up to 30 s (the referee re-sends pending decisions).
    long lastOk = System.nanoTime();
    long backoffMs = 100;
    for (;;) {
      boolean[] alive = {false};
      Status status = playOnce(address, token, random, alive);
      if (alive[0]) {
        lastOk = System.nanoTime();
        backoffMs = 100;
      }
      if (status.isOk()) System.exit(0);
      if (status.getCode() == Status.Code.UNAUTHENTICATED) {
        System.err.println("cardarena bot: the referee refused the token: " + status.getDescription());
        System.exit(1);
      }
      System.err.println("connection lost (" + status.getCode() + ": " + status.getDescription() + ")");
      if (!RETRY.contains(status.getCode())) System.exit(1);
      if (System.nanoTime() - lastOk > TimeUnit.SECONDS.toNanos(30)) {
        System.err.println("cardarena bot: no referee at " + address + " for 30 s");
        System.exit(1);
      }
      Thread.sleep(backoffMs);
      backoffMs = Math.min(backoffMs * 2, 2000);
    }
  }
}
