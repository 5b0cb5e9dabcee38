#include "colossalai/step/relay.hpp"

#include "colossalai/exec/signal_policy.hpp"

#include <string>

namespace colossalai::step {

namespace {

// The relay up to its list of the signals it ignores (`my @stop = qw(...)`, the signals of
// exec::signal_policy::delivered_to_slurm_steps), and from there on.
constexpr std::string_view relay_head = "use POSIX;\nuse Fcntl qw(O_DIRECT);\nmy @stop = qw(";
// Every write is whole (put); a frame holds at most 500 bytes of the job's (frame_payload) and
// begins with the rank, the relay's first argument. Its channel (the second, relay_argument):
// `streams` writes each chunk's frames on the stream they came from in one write; `packets`
// writes every frame on stderr, one write each, after putting a pipe there in packet mode
// (O_DIRECT), so that each read of the daemon's gets one frame, whole.
// A stop signal sent to the task's process group before the job exists (the launcher stopped the
// launch as the relay started) reached only the relay, which ignores it: the signals are held
// (blocked, still at their first disposition, so one pending since before the relay ran stays
// pending) until the job is forked, those that came meanwhile are passed on to it, and only then
// ignored. The job waits for that (the gate pipe's end) with them held, so a signal both got
// reaches it once, and at its default disposition.
// Once the job has ended, select() no longer waits: what is already there is read, then the
// relay ends even if something the job started still holds its pipes.
constexpr std::string_view relay_tail = R"PERL();
my @held = map { &{"POSIX::SIG$_"} } @stop;
my $held = POSIX::SigSet->new(@held);
sigprocmask(SIG_BLOCK, $held);
my $rank = shift @ARGV;
my $packets = shift(@ARGV) eq "packets";
pipe(my $or, my $ow) and pipe(my $er, my $ew) and pipe(my $gr, my $gw)
    or die "colossalai: pipe: $!\n";
my $pid = fork;
defined $pid or die "colossalai: fork: $!\n";
if (!$pid) {
    close $gw;
    sysread($gr, my $gate, 1);
    $SIG{$_} = "DEFAULT" for @stop;
    open(STDOUT, ">&", $ow) and open(STDERR, ">&", $ew) or POSIX::_exit(127);
    close $_ for $or, $er, $ow, $ew, $gr;
    sigprocmask(SIG_UNBLOCK, $held);
    exec { $ARGV[0] } @ARGV;
    print STDERR "colossalai: cannot run $ARGV[0]: $!\n";
    POSIX::_exit(127);
}
my $pending = POSIX::SigSet->new;
sigpending($pending);
$pending->ismember($_) and kill($_, $pid) for @held;
close $_ for $ow, $ew, $gr, $gw;
$SIG{$_} = "IGNORE" for @stop;
sigprocmask(SIG_UNBLOCK, $held);
if ($packets && -p STDERR) {
    my $flags = fcntl(STDERR, F_GETFL, 0);
    fcntl(STDERR, F_SETFL, $flags | O_DIRECT) if defined $flags;
}
my %open = (fileno($or) => [$or, $packets ? *STDERR : *STDOUT, "n", "p"],
            fileno($er) => [$er, *STDERR, "N", "P"]);
sub frames {
    my ($in, $line, $piece_end) = @_;
    my ($at, $len, @out) = (0, length $in);
    while ($at < $len) {
        my $nl = index($in, "\n", $at);
        my ($n, $end) = $nl >= 0 && $nl - $at <= 500 ? ($nl - $at, $line)
                      : ($len - $at < 500 ? $len - $at : 500, $piece_end);
        my $piece = substr($in, $at, $n);
        $at += $n + ($end eq $line ? 1 : 0);
        $piece =~ s/\x1e/\x1e\x1e/g;
        push @out, "$rank\x1e$piece\x1e$end\n";
    }
    return @out;
}
sub put {
    my ($fh, $text) = @_;
    while (length $text) {
        my $n = syswrite($fh, $text);
        return unless defined $n;
        substr($text, 0, $n, "");
    }
}
my ($status, $ended);
while (%open) {
    my $want = "";
    vec($want, $_, 1) = 1 for keys %open;
    my $ready = select(my $got = $want, undef, undef, $ended ? 0 : 0.5);
    if ($ready <= 0) {
        last if $ended;
        if (waitpid($pid, WNOHANG) == $pid) { $status = $?; $ended = 1; }
        next;
    }
    for my $fd (keys %open) {
        next unless vec($got, $fd, 1);
        my ($from, $to, @ends) = @{$open{$fd}};
        if (!sysread($from, my $bytes, 65536)) {
            delete $open{$fd};
        } elsif ($packets) {
            put($to, $_) for frames($bytes, @ends);
        } else {
            put($to, join("", frames($bytes, @ends)));
        }
    }
}
$status = waitpid($pid, 0) == $pid ? $? : 255 << 8 unless $ended;
exit($status & 127 ? 128 + ($status & 127) : $status >> 8);
)PERL";

} // namespace

std::string_view relay_program() {
    static const std::string program =
        std::string(relay_head) +
        exec::signal_policy::short_names(exec::signal_policy::delivered_to_slurm_steps, " ") +
        std::string(relay_tail);
    return program;
}

std::string_view relay_argument(RelayChannel channel) {
    switch (channel) {
    case RelayChannel::own_streams:
        return "streams";
    case RelayChannel::stderr_packets:
        return "packets";
    }
    return "streams";
}

std::optional<FrameBytes> decode_frame(std::string_view body) {
    std::string bytes;
    bytes.reserve(body.size());
    for (std::size_t i = 0; i < body.size(); ++i) {
        if (body[i] != record_separator) {
            bytes += body[i];
            continue;
        }
        if (i + 1 == body.size()) {
            return std::nullopt;
        }
        char next = body[i + 1];
        if (next == record_separator) {
            bytes += record_separator;
            ++i;
        } else if (std::string_view("npNP").find(next) != std::string_view::npos &&
                   i + 2 == body.size()) {
            if (next == 'n' || next == 'N') {
                bytes += '\n';
            }
            return FrameBytes{next == 'n' || next == 'p' ? output::Stream::out
                                                         : output::Stream::err,
                              std::move(bytes)};
        } else {
            return std::nullopt; // a marker (RS `colossalai-...`) or no frame at all
        }
    }
    return std::nullopt; // no end: not the relay's
}

} // namespace colossalai::step
