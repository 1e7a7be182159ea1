// Whether a host's own link is the queued one (lmcd/logic/link_vantage.h), from recorded
// round-trip sequences between lmcds: three hosts, h2's downlink flooded from t = 10 s. The
// round trips through a queue of about 4 ms cost that much more; h2 sees both of its peers
// slow, h1 and h3 only h2.
#include <catch2/catch.hpp>

#include "logic/link_vantage.h"

using mcm::lmcd::LinkVantage;
using mcm::lmcd::LinkView;

namespace {

constexpr double kBase = 180;    // µs, a clean round trip between two hosts
constexpr double kQueue = 4000;  // µs, what the flooded downlink's queue adds

/// One status round with jitter (0..60 µs): `slow` peers cross the queue after t = 10.
void second(LinkVantage& v, double t, const std::vector<std::pair<const char*, bool>>& peers) {
  int i = 0;
  for (const auto& [peer, slow] : peers) {
    const double jitter = (static_cast<int>(t * 7) + 13 * i++) % 61;
    v.round_trip(peer, kBase + jitter + (slow && t >= 10 ? kQueue : 0), t);
  }
}

}  // namespace

TEST_CASE("lmcd link vantage: the flooded host sees most peers slow, its victims do not") {
  LinkVantage h1(1000, 10, 2), h2(1000, 10, 2), h3(1000, 10, 2);
  for (int t = 0; t < 20; ++t) {
    second(h1, t, {{"h2", true}, {"h3", false}});
    second(h2, t, {{"h1", true}, {"h3", true}});
    second(h3, t, {{"h1", false}, {"h2", true}});
    const LinkView v1 = h1.evaluate(t), v2 = h2.evaluate(t), v3 = h3.evaluate(t);
    CHECK(v1.state == LinkView::State::clean);
    CHECK(v3.state == LinkView::State::clean);
    // The least of the 5 newest: queued from the fifth slow second on.
    CHECK((v2.state == LinkView::State::queued) == (t >= 14));
    CHECK(v1.confirms() == false);
  }
  const LinkView v2 = h2.evaluate(19);
  CHECK(v2.peers_measured == 2);
  CHECK(v2.peers_slow == 2);
  CHECK(v2.median_excess_us == Approx(kQueue).margin(61));
  CHECK_THAT(v2.summary, Catch::StartsWith("round trips to h1 +"));
  CHECK_THAT(h1.evaluate(19).summary, Catch::Contains("h3 +"));
}

TEST_CASE("lmcd link vantage: one slow round trip in five is a spike, not a queue") {
  LinkVantage v(1000, 10, 2);
  for (int t = 0; t < 30; ++t) {
    const bool spike = t % 5 == 2;
    v.round_trip("h1", kBase + (spike ? 9000 : 0), t);
    v.round_trip("h3", kBase + (spike ? 9000 : 0), t);
    CHECK(v.evaluate(t).state == LinkView::State::clean);
  }
}

TEST_CASE("lmcd link vantage: with one peer nobody can tell, with a peer gone it vetoes") {
  LinkVantage two_hosts(1000, 10, 1);
  CHECK(two_hosts.evaluate(0).state == LinkView::State::unknown);
  CHECK(two_hosts.evaluate(0).summary == "no peer measured");
  for (int t = 0; t < 20; ++t) two_hosts.round_trip("h1", kBase + (t >= 5 ? kQueue : 0), t);
  LinkView one = two_hosts.evaluate(19);
  CHECK(one.state == LinkView::State::unknown);  // h1 is slow, but whose queue is it?
  CHECK(one.confirms());
  CHECK(one.peers_slow == 1);

  LinkVantage v(1000, 10, 2);
  for (int t = 0; t < 20; ++t) v.round_trip("h1", kBase + (t >= 5 ? kQueue : 0), t);
  LinkView gone = v.evaluate(19);  // h3's lmcd never answered
  CHECK(gone.state == LinkView::State::unconfirmed);
  CHECK_FALSE(gone.confirms());
  CHECK_THAT(gone.summary, Catch::Contains("1 of 2 peers measured: cannot tell"));
  v.round_trip("h3", kBase, 19);
  CHECK(v.evaluate(19).state == LinkView::State::clean);  // 1 of 2 slow: not most
  // Both fall silent: after the ttl nobody is measured.
  CHECK(v.evaluate(30).state == LinkView::State::unconfirmed);
  CHECK(v.evaluate(30).peers_measured == 0);
  // A negative round trip (a clock stepped between send and echo) is not one.
  v.round_trip("h4", -50, 30);
  CHECK(v.evaluate(30).peers_measured == 0);
}

TEST_CASE("lmcd link vantage: three peers, two slow, is queued") {
  LinkVantage v(1000, 10, 3);
  for (int t = 0; t < 12; ++t) {
    v.round_trip("h1", kBase + (t >= 4 ? kQueue : 0), t);
    v.round_trip("h3", kBase + (t >= 4 ? kQueue : 0), t);
    v.round_trip("h4", kBase, t);
  }
  LinkView view = v.evaluate(11);
  CHECK(view.state == LinkView::State::queued);
  CHECK(view.peers_slow == 2);
  CHECK(view.peers_measured == 3);
}
