#include "colossalai/run/host_pattern.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <variant>

namespace colossalai::run {

namespace {

// One `lo-hi` (or single number) of a bracket; `width` is the digits of `lo` as written, so
// that `01-16` keeps its zero.
struct Range {
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    std::size_t width = 0;
};

// A bracket expands to the numbers of its ranges, in the order written.
using Bracket = std::vector<Range>;
using Piece = std::variant<std::string, Bracket>;

constexpr std::size_t max_digits = 18; // fits std::uint64_t with room for the arithmetic

// Thrown inside the parser with the reason only; expand_host_pattern adds where and what.
struct Problem {
    std::string reason;
};

std::uint64_t parse_bound(std::string_view text, std::string_view item) {
    if (text.empty()) {
        throw Problem{fmt::format("'{}': empty bound", item)};
    }
    if (!std::all_of(text.begin(), text.end(), util::is_ascii_digit)) {
        throw Problem{fmt::format("'{}': not a number or range (such as 01-16)", item)};
    }
    if (text.size() > max_digits) {
        throw Problem{fmt::format("'{}': more than {} digits", item, max_digits)};
    }
    return *util::parse_integer<std::uint64_t>(text);
}

Bracket parse_bracket(std::string_view inside) {
    if (inside.empty()) {
        throw Problem{"empty brackets"};
    }
    Bracket bracket;
    for (const std::string& item : util::split(inside, ',')) {
        if (item.empty()) {
            throw Problem{"empty item in brackets"};
        }
        size_t dash = item.find('-');
        std::string_view lo = std::string_view(item).substr(0, dash);
        std::string_view hi =
            dash == std::string::npos ? lo : std::string_view(item).substr(dash + 1);
        Range range{parse_bound(lo, item), parse_bound(hi, item), lo.size()};
        if (range.lo > range.hi) {
            throw Problem{fmt::format("reversed range '{}'", item)};
        }
        bracket.push_back(range);
    }
    return bracket;
}

std::vector<Piece> parse_pieces(std::string_view pattern) {
    std::vector<Piece> pieces;
    std::string literal;
    size_t at = 0;
    while (at < pattern.size()) {
        char c = pattern[at];
        if (c == ']') {
            throw Problem{"']' without '['"};
        }
        if (c != '[') {
            literal += c;
            ++at;
            continue;
        }
        size_t close = pattern.find(']', at);
        if (close == std::string_view::npos) {
            throw Problem{"'[' without ']'"};
        }
        std::string_view inside = pattern.substr(at + 1, close - at - 1);
        if (inside.find('[') != std::string_view::npos) {
            throw Problem{"nested '['"};
        }
        if (inside.find(':') != std::string_view::npos) {
            // An IPv6 address in brackets: part of the name, checked by parse_host.
            literal += pattern.substr(at, close - at + 1);
        } else {
            pieces.emplace_back(std::move(literal));
            literal.clear();
            pieces.emplace_back(parse_bracket(inside));
        }
        at = close + 1;
    }
    pieces.emplace_back(std::move(literal));
    return pieces;
}

// How many names the pieces make; nullopt when more than `limit`.
std::optional<std::size_t> count_names(const std::vector<Piece>& pieces, std::size_t limit) {
    std::size_t total = 1;
    for (const Piece& piece : pieces) {
        const Bracket* bracket = std::get_if<Bracket>(&piece);
        if (bracket == nullptr) {
            continue;
        }
        std::size_t numbers = 0;
        for (const Range& range : *bracket) {
            std::uint64_t span = range.hi - range.lo + 1;
            if (span > limit || numbers + span > limit) {
                return std::nullopt;
            }
            numbers += static_cast<std::size_t>(span);
        }
        if (total * numbers > limit) { // both <= limit: no overflow
            return std::nullopt;
        }
        total *= numbers;
    }
    return total;
}

// The names of the pieces, leftmost bracket varying slowest. Iterative: a hostfile line may hold
// hundreds of thousands of brackets (each of one number), too deep for recursion. A bracket of
// one number is appended in place; only those of several (at most log2(limit) of them) copy.
std::vector<std::string> expand(const std::vector<Piece>& pieces) {
    std::vector<std::string> names(1);
    for (const Piece& piece : pieces) {
        if (const auto* literal = std::get_if<std::string>(&piece)) {
            for (std::string& name : names) {
                name += *literal;
            }
            continue;
        }
        const Bracket& bracket = std::get<Bracket>(piece);
        if (bracket.size() == 1 && bracket.front().lo == bracket.front().hi) {
            std::string number = fmt::format("{:0{}}", bracket.front().lo, bracket.front().width);
            for (std::string& name : names) {
                name += number;
            }
            continue;
        }
        std::vector<std::string> longer;
        for (const std::string& name : names) {
            for (const Range& range : bracket) {
                for (std::uint64_t number = range.lo; number <= range.hi; ++number) {
                    longer.push_back(name + fmt::format("{:0{}}", number, range.width));
                }
            }
        }
        names = std::move(longer);
    }
    return names;
}

} // namespace

std::vector<std::string_view> split_host_list(std::string_view list) {
    std::vector<std::string_view> items;
    size_t start = 0;
    int depth = 0;
    for (size_t at = 0; at < list.size(); ++at) {
        if (list[at] == '[') {
            ++depth;
        } else if (list[at] == ']' && depth > 0) {
            --depth;
        } else if (list[at] == ',' && depth == 0) {
            items.push_back(list.substr(start, at - start));
            start = at + 1;
        }
    }
    items.push_back(list.substr(start));
    return items;
}

std::vector<std::string> expand_host_pattern(std::string_view pattern, std::string_view where,
                                             std::size_t limit) {
    if (pattern.find_first_of("[]") == std::string_view::npos) {
        if (limit == 0) {
            throw usage_error("{}: more than {} hosts", where, max_expanded_hosts);
        }
        return {std::string(pattern)};
    }
    std::string shown = util::escape_for_message(pattern);
    try {
        std::vector<Piece> pieces = parse_pieces(pattern);
        if (!count_names(pieces, limit)) {
            throw Problem{
                limit == max_expanded_hosts
                    ? fmt::format("expands to more than {} hosts", max_expanded_hosts)
                    : fmt::format("the list expands to more than {} hosts", max_expanded_hosts)};
        }
        return expand(pieces);
    } catch (const Problem& problem) {
        throw usage_error("{}: invalid host range '{}': {}", where, shown,
                          util::escape_for_message(problem.reason));
    }
}

} // namespace colossalai::run
