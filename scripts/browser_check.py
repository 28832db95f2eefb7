#!/usr/bin/env python3
"""The map page (`nearby serve`'s `/`) in a real browser: Debian's headless Chromium driven by Selenium.

    browser_check.py URL [--center LAT,LON] [--screenshot FILE.png [--screenshot-zoom Z]]
                         [--token TOKEN --bookmarks ID,ID,...] [--keyword ㄱㅂㄱ --expect-title 경복궁]
    browser_check.py URL --first-clusters-only [--center LAT,LON] [--screenshot FILE.png]

URL is the server's root (http://127.0.0.1:PORT/). The page is checked as a person uses it:

- it loads with no console error, and its first clusters are drawn (the time from navigation is printed);
- at zoom 12, at a clicked cluster's expansion zoom and at 15, the markers on screen are exactly
  `/v1/clusters`' entries for that view and filters;
- a click on a cluster zooms the map to the cluster's expansion zoom;
- a card tapped in the carousel highlights its marker only after the debounce (not before), as
  NearbyCarousel defines it (debounce, then distinct-until-changed);
- after the map moves, "search this area" re-queries the list around the new centre;
- the chips count each category in the view;
- a keyword in Hangul initial consonants (ㄱㅂㄱ) lists 경복궁, and its marker is drawn;
- with --token, the bookmarks filter sends `Authorization: Bearer` and shows those places only.

With --first-clusters-only it loads the page cold and warm and checks nothing else. Prints one JSON
line of figures (firstClustersMs, firstClustersWarmMs, …) on success; any failure exits non-zero with the
reason. Chromium and chromedriver come from Debian (`apt-get install chromium chromium-driver`);
Selenium from PyPI, installed for the user when missing. Nothing is skipped: a browser that cannot
start is a failure.
"""

import argparse
import json
import subprocess
import sys
import time
import urllib.parse
import urllib.request

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def fail(message):
    sys.exit("browser_check: " + message)


def ensure_selenium():
    try:
        import selenium  # noqa: F401
        return
    except ImportError:
        pass
    step = [sys.executable, "-m", "pip", "install", "--user", "--quiet", "--disable-pip-version-check", "selenium"]
    done = subprocess.run(step, capture_output=True, text=True)
    if done.returncode != 0:
        fail("cannot install selenium: %s\n%s" % (" ".join(step), done.stderr[-2000:]))
    import importlib
    import site
    sys.path.insert(0, site.getusersitepackages())
    importlib.invalidate_caches()


def start_browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    import os
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            fail("%s is missing: apt-get install chromium chromium-driver" % path)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,860", "--lang=ko-KR", "--no-first-run", "--disable-extensions",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    except Exception as error:  # the reason is the whole message: say it and stop
        fail("Chromium (%s) or chromedriver (%s) cannot start: %s\n"
             "install them: apt-get install chromium chromium-driver" % (CHROMIUM, CHROMEDRIVER, error))


class Page:
    def __init__(self, driver, root, token=None):
        self.driver = driver
        self.root = root.rstrip("/")
        self.token = token

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, what, predicate, timeout=15.0):
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                fail("timed out waiting for " + what)
            time.sleep(0.02)

    def get(self, path, query, personal=False):
        request = urllib.request.Request(self.root + path + "?" + query)
        if personal and self.token:
            request.add_header("Authorization", "Bearer " + self.token)
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())

    def idle(self):
        """Waits until the page has no request in flight and has drawn the clusters of its current view."""
        def settled():
            return self.js("""
                const n = window.nearby;
                if (!n || !n.map || n.inFlight !== 0 || !n.lastClusters) return false;
                return n.lastClusters.zoom === n.map.getZoom() && n.lastClusters.bbox === n.bbox();""")
        self.wait("the page to settle", settled)
        time.sleep(0.05)
        self.wait("the page to settle", settled)

    def markers(self):
        """The markers drawn on the map, as {(kind, id)}, and how many lie outside the map's box."""
        found = self.js("""
            const box = document.getElementById('map').getBoundingClientRect();
            return [...document.querySelectorAll('#map .nearby-marker')].map((e) => {
                const r = e.getBoundingClientRect();
                const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
                const inside = x >= box.left - 1 && x <= box.right + 1 && y >= box.top - 1 && y <= box.bottom + 1;
                return [e.dataset.kind, e.dataset.id, inside];
            });""")
        return {(k, i) for k, i, _ in found}, sum(1 for *_, inside in found if not inside), len(found)

    def check_markers(self, label):
        """The markers on screen are /v1/clusters' entries for the view the page shows."""
        self.idle()
        last = self.js("return window.nearby.lastClusters")
        zoom = self.js("return window.nearby.map.getZoom()")
        if last["zoom"] != zoom:
            fail("%s: the page asked for zoom %s while showing %s" % (label, last["zoom"], zoom))
        answer = self.get("/v1/clusters", last["query"], personal=True)
        expected = set()
        for feature in answer["features"]:
            p = feature["properties"]
            if p.get("cluster"):
                expected.add(("cluster", str(p["cluster_id"])))
            else:
                expected.add(("place", str(p.get("id", feature.get("id")))))
        drawn, outside, count = self.markers()
        if count != len(drawn):
            fail("%s: %d markers drawn but only %d distinct" % (label, count, len(drawn)))
        if drawn != expected:
            fail("%s: the markers differ from /v1/clusters?%s: %d drawn, %d expected, %d missing, %d extra"
                 % (label, last["query"], len(drawn), len(expected), len(expected - drawn), len(drawn - expected)))
        if outside:
            fail("%s: %d markers lie outside the map" % (label, outside))
        if not drawn:
            fail("%s: no marker in the view" % label)
        clusters = sum(1 for k, _ in drawn if k == "cluster")
        return {"zoom": zoom, "markers": len(drawn), "clusters": clusters}

    def screenshot(self, path, lat, lon, zoom):
        """The map at zoom `zoom` around the point, once its boundaries and clusters are drawn."""
        self.js("window.nearby.map.setView([arguments[0], arguments[1]], arguments[2], {animate: false})", lat, lon, zoom)
        self.idle()
        self.wait("the boundaries' tiles", lambda: self.js(
            "return document.querySelectorAll('.leaflet-tile-container canvas.leaflet-tile-loaded').length > 0"))
        self.wait("every tile", lambda: self.js("return document.querySelectorAll('.leaflet-tile-loading').length === 0"))
        time.sleep(0.5)
        self.driver.save_screenshot(path)

    def console_errors(self):
        return [e for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--center", default="37.556,126.979", help="LAT,LON to open the map at (zoom 12)")
    parser.add_argument("--screenshot")
    parser.add_argument("--screenshot-zoom", type=int, default=13)
    parser.add_argument("--token")
    parser.add_argument("--bookmarks", default="", help="the ids the token's user has bookmarked")
    parser.add_argument("--keyword", default="ㄱㅂㄱ", help="a keyword whose list must hold --expect-title")
    parser.add_argument("--expect-title", default="경복궁")
    parser.add_argument("--first-clusters-only", action="store_true",
                        help="only load the page twice and print the first clusters' times")
    args = parser.parse_args()
    lat, lon = (float(v) for v in args.center.split(","))
    ensure_selenium()
    started = time.monotonic()
    driver = start_browser()
    figures = {}
    try:
        page = Page(driver, args.url, args.token)
        debounce = 300

        # Load: the first clusters' time from navigation (performance.now() counts from it), cold then warm.
        driver.get("%s/#12/%f/%f" % (page.root, lat, lon))
        for key in ("firstClustersMs", "firstClustersWarmMs"):
            if key == "firstClustersWarmMs":
                # Warm: the server has built its hierarchy and loaded the boundaries; the browser has Leaflet.
                page.wait("the first load to finish", lambda: page.js(
                    "return window.nearby.inFlight === 0 && document.querySelectorAll('.leaflet-tile-loaded').length > 0"
                    " && document.querySelectorAll('.leaflet-tile-loading').length === 0"), timeout=60)
                driver.refresh()
            ms = page.wait("the first clusters", lambda: page.js("return window.nearby && window.nearby.firstClustersMs"),
                           timeout=60)
            figures[key] = round(ms, 1)
        if page.js("return typeof L") != "object":
            fail("Leaflet did not load (is libjs-leaflet installed?)")
        if args.first_clusters_only:
            if args.screenshot:
                page.screenshot(args.screenshot, lat, lon, args.screenshot_zoom)
            figures["seconds"] = round(time.monotonic() - started, 2)
            print(json.dumps(figures))
            return
        debounce = page.js("return window.nearby.debounceMs")

        # Two zooms: the view at 12, then the one a cluster's click leads to.
        figures["zoom12"] = page.check_markers("zoom 12")
        cluster = page.js("""
            const box = document.getElementById('map').getBoundingClientRect();
            const cx = (box.left + box.right) / 2, cy = (box.top + box.bottom) / 2;
            let best = null, bestD = Infinity;
            for (const e of document.querySelectorAll('#map .nearby-marker[data-kind=cluster]')) {
                if (Number(e.dataset.expansionZoom) <= window.nearby.map.getZoom()) continue;
                const r = e.getBoundingClientRect();
                const d = Math.hypot((r.left + r.right) / 2 - cx, (r.top + r.bottom) / 2 - cy);
                if (d < bestD) { best = e; bestD = d; }
            }
            return best;""")
        if cluster is None:
            fail("zoom 12: no cluster to click")
        expansion = int(cluster.get_attribute("data-expansion-zoom"))
        target = min(expansion, page.js("return window.nearby.map.getMaxZoom()"))
        cluster.click()
        page.wait("the map to zoom to %d" % target, lambda: page.js("return window.nearby.map.getZoom()") == target)
        figures["clusterClick"] = {"expansionZoom": expansion, "zoom": target}
        figures["afterClick"] = page.check_markers("zoom %d after the click" % target)

        # The chips count each category in the view.
        bbox = page.js("return window.nearby.bbox()")
        page.wait("the chips' counts", lambda: page.js(
            "return window.nearby.inFlight === 0 && document.querySelector('.chip .count').textContent !== ''"))
        shown = page.js("""return [...document.querySelectorAll('.chip')].map(
            (c) => [c.dataset.category, c.querySelector('.count').textContent.replace(/,/g, '')])""")
        for category, text in shown:
            total = page.get("/v1/places", "category=%s&bbox=%s&limit=1&fields=id" % (category, bbox))["total"]
            if str(total) != text:
                fail("the chip of category %s says %r; the view holds %s" % (category, text, total))

        # Zoom 15 at the centre, then "search this area": a re-query around the new centre.
        page.js("window.nearby.map.setView([arguments[0], arguments[1]], 15, {animate: false})", lat, lon)
        page.idle()
        button = driver.find_element("id", "search-area")
        page.wait("the search-this-area button", button.is_displayed)
        before = page.js("return window.nearby.requests.places")
        generation = page.js("return window.nearby.carousel.generation")
        button.click()
        page.wait("the list's re-query", lambda: page.js("return window.nearby.carousel.generation") > generation)
        page.idle()
        if page.js("return window.nearby.requests.places") != before + 1:
            fail("search this area: not exactly one re-query")
        if button.is_displayed():
            fail("search this area: the button stays after the re-query")
        last = page.js("return window.nearby.lastList")
        centre = page.js("const c = window.nearby.map.getCenter(); return [c.lat, c.lng]")
        if abs(last["lat"] - centre[0]) > 1e-9 or abs(last["lon"] - centre[1]) > 1e-9:
            fail("search this area: the list was asked at %s, the map is at %s" % (last, centre))
        figures["zoom15"] = page.check_markers("zoom 15")

        # A card tapped: its marker is highlighted after the debounce and not before.
        page.wait("the first card's selection", lambda: page.js(
            "return window.nearby.log.some((e) => e.type === 'selected' && e.generation === "
            "window.nearby.carousel.generation)"), timeout=5)
        index = page.js("""
            const cards = [...document.querySelectorAll('#cards .card')];
            for (let i = 3; i < cards.length; i++) {
                if (document.querySelector(`#map .nearby-marker[data-kind=place][data-id="${cards[i].dataset.id}"]`)) return i;
            }
            return -1;""")
        if index < 0:
            fail("zoom 15: no card beyond the third has a marker on screen")
        place_id = page.js("return document.querySelectorAll('#cards .card')[arguments[0]].dataset.id", index)
        marker_selected = ("return document.querySelector(`#map .nearby-marker[data-kind=place][data-id=\"${arguments[0]}\"]`)"
                           ".classList.contains('selected')")
        tapped = page.js("""
            const t = performance.now();
            document.querySelectorAll('#cards .card')[arguments[0]].click();
            const m = document.querySelector(`#map .nearby-marker[data-kind=place][data-id="${arguments[1]}"]`);
            return [t, m.classList.contains('selected')];""", index, place_id)
        if tapped[1]:
            fail("card %d: its marker was highlighted at once, before the debounce" % index)
        time.sleep(debounce / 2000)
        if page.js(marker_selected, place_id):
            fail("card %d: its marker was highlighted within half the debounce" % index)
        page.wait("card %d's marker to be highlighted" % index, lambda: page.js(marker_selected, place_id), timeout=5)
        log = page.js("return window.nearby.log.filter((e) => e.t >= arguments[0])", tapped[0])
        selected = [e for e in log if e["type"] == "selected"]
        if [e["id"] for e in selected] != [place_id]:
            fail("card %d: selections after the tap were %s" % (index, selected))
        inputs = [e for e in log if e["type"] == "index" and e["t"] <= selected[0]["t"]]
        waited = selected[0]["t"] - inputs[-1]["t"]
        if waited < debounce - 2 or selected[0]["t"] - tapped[0] < debounce - 2:
            fail("card %d: selected %.1f ms after the last index, %.1f ms after the tap (debounce %d)"
                 % (index, waited, selected[0]["t"] - tapped[0], debounce))
        highlighted = page.js("return [...document.querySelectorAll('#map .nearby-marker.selected')].map((e) => e.dataset.id)")
        if highlighted != [place_id]:
            fail("card %d: highlighted markers %s, expected [%s]" % (index, highlighted, place_id))
        figures["card"] = {"index": index, "id": place_id, "selectedAfterMs": round(selected[0]["t"] - tapped[0], 1),
                           "indexEvents": len(inputs)}

        # Move the map: the button comes back; pressing it re-queries around the new centre.
        page.js("window.nearby.map.panBy([260, 140], {animate: false})")
        page.idle()
        page.wait("the search-this-area button after the move", button.is_displayed)
        before = page.js("return window.nearby.requests.places")
        old = page.js("return window.nearby.lastList")
        button.click()
        page.wait("the re-query after the move", lambda: page.js("return window.nearby.lastList")["query"] != old["query"])
        page.idle()
        if page.js("return window.nearby.requests.places") != before + 1:
            fail("search this area after a move: not exactly one re-query")
        figures["movedRequery"] = True

        if args.screenshot:
            page.screenshot(args.screenshot, lat, lon, args.screenshot_zoom)

        # A keyword of initial consonants, through the `keyword` parameter.
        keyword = driver.find_element("id", "keyword")
        keyword.send_keys(args.keyword + "\n")
        page.wait("the keyword's list", lambda: page.js(
            "return window.nearby.lastList && window.nearby.lastList.query.includes('keyword=')"))
        page.idle()
        titles = page.js("return [...document.querySelectorAll('#cards .card .title')].map((e) => e.textContent)")
        if args.expect_title not in titles:
            fail("keyword %s: the cards are %s, without %s" % (args.keyword, titles[:5], args.expect_title))
        figures["keyword"] = titles[:3]
        # The view around the first match: its marker is drawn, as /v1/clusters gives it with the keyword.
        first = page.js("const p = window.nearby.carousel.list[0]; window.nearby.map.setView([p.lat, p.lon], 15, "
                        "{animate: false}); return p.id")
        page.check_markers("keyword " + args.keyword)
        if ("place", first) not in page.markers()[0]:
            fail("keyword %s: no marker for %s" % (args.keyword, first))
        keyword.clear()
        keyword.send_keys("\n")
        page.wait("the list without keyword", lambda: "keyword=" not in page.js("return window.nearby.lastList.query"))
        page.idle()

        # The user's bookmarks, with a token.
        if args.token:
            wanted = sorted(i for i in args.bookmarks.split(",") if i)
            driver.find_element("id", "token").send_keys(args.token + "\n")
            box = driver.find_element("id", "bookmarked")
            page.wait("the bookmarks checkbox", box.is_enabled)
            box.click()
            page.wait("the bookmarks' list", lambda: "bookmarked=true" in page.js("return window.nearby.lastList.query"))
            page.idle()
            cards = sorted(page.js("return [...document.querySelectorAll('#cards .card')].map((e) => e.dataset.id)"))
            if cards != wanted:
                fail("bookmarks: the cards are %s, expected %s" % (cards, wanted))
            if page.js("return sessionStorage.getItem('nearby.token')") != args.token:
                fail("bookmarks: the token is not kept in sessionStorage")
            figures["bookmarks"] = page.check_markers("bookmarks")

        errors = page.console_errors()
        if errors:
            fail("console errors: %s" % errors[:5])
    finally:
        driver.quit()
    figures["seconds"] = round(time.monotonic() - started, 2)
    print(json.dumps(figures, ensure_ascii=False))


if __name__ == "__main__":
    main()
