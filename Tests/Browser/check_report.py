#!/usr/bin/env python3
"""Drives listdiff's HTML report in headless Chromium (selenium and chromedriver), where a
check needs the page to run: counts, filters, search, the inline toggle, word marks, #key
links, pages, hostile input and network requests. Run by HTMLReportBrowserTests.

Usage: check_report.py DIR, where DIR holds people.html and people.json (the report and the
JSON changeset of Examples/people-*.json), sections.html (of Examples/people-sections-*.yaml),
hostile.html (inputs whose keys, member names and
values are hostile; the payloads set window.__pwned), and many.html, many.json (250 changes).
Prints each failed check and exits 1 if any failed.
"""
import http.server
import json
import os
import sys
import tempfile
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

DIR = sys.argv[1]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, flush=True)


def browser():
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1000", "--user-data-dir=" + tempfile.mkdtemp(prefix="listdiff-chromium-")]:
        options.add_argument(argument)
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    return webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)


def url(name, fragment=""):
    return "file://" + os.path.join(DIR, name) + fragment


def load(driver, name, fragment=""):
    driver.get(url(name, fragment))
    WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.documentElement.hasAttribute('data-ready')"))


def cards(driver):
    return driver.find_elements(By.CSS_SELECTOR, "article.card")


def card_keys(driver):
    return [c.find_element(By.CSS_SELECTOR, "a.key").text for c in cards(driver)]


def search(driver, text):
    """Types `text` in the search box and waits for the page to draw the cards it finds."""
    box = driver.find_element(By.ID, "search")
    status = driver.find_element(By.ID, "status")
    driver.execute_script("arguments[0].textContent = ''", status)
    box.clear()
    if text:
        box.send_keys(text)
    else:
        driver.execute_script("arguments[0].dispatchEvent(new Event('input'))", box)
    WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "status").text != "")


def people(driver):
    with open(os.path.join(DIR, "people.json")) as f:
        changeset = json.load(f)
    load(driver, "people.html")
    # The counts shown are the changeset's.
    for kind in ["inserted", "deleted", "moved", "updated", "unchanged"]:
        shown = driver.find_element(By.CSS_SELECTOR, f'.count[data-kind="{kind}"] .n').text
        check(shown == str(changeset["summary"][kind]), f"count {kind}: shown {shown}, changeset {changeset['summary'][kind]}")
    ops = sorted(c.get_attribute("data-op") for c in cards(driver))
    expected = sorted(change["op"][0] for change in changeset["changes"])
    check(ops == expected, f"cards {ops}, changes {expected}")

    # The filters hide and show the right cards.
    def ops_shown():
        return sorted(c.get_attribute("data-op") for c in cards(driver))
    driver.find_element(By.ID, "kind-i").click()
    check(ops_shown() == [op for op in expected if op != "i"], f"without inserts: {ops_shown()}")
    driver.find_element(By.ID, "kind-u").click()
    check(ops_shown() == [op for op in expected if op not in "iu"], f"without inserts and updates: {ops_shown()}")
    driver.find_element(By.ID, "kind-i").click()
    driver.find_element(By.ID, "kind-u").click()
    check(ops_shown() == expected, f"all kinds again: {ops_shown()}")

    # Search: by key, by a value inside a record, by nothing that is there.
    search(driver, "id=6")
    check(card_keys(driver) == ["id=6"], f"search id=6: {card_keys(driver)}")
    search(driver, "frances")
    check(card_keys(driver) == ["id=8"], f"search frances: {card_keys(driver)}")
    search(driver, "HOPPER")
    check(card_keys(driver) == ["id=3"], f"search HOPPER: {card_keys(driver)}")
    search(driver, "no such text")
    check(len(cards(driver)) == 0 and "No change matches" in driver.find_element(By.ID, "changes").text, "search with no match")
    search(driver, "")
    check(len(cards(driver)) == len(expected), "search cleared")

    # The word marks of a known pair: grace@ -> grace.hopper@.
    card = driver.find_element(By.ID, "id=3")
    inserted = [e.text for e in card.find_elements(By.TAG_NAME, "ins")]
    deleted = [e.text for e in card.find_elements(By.TAG_NAME, "del")]
    check(inserted == [".hopper"] and deleted == [], f"word marks: ins {inserted}, del {deleted}")

    # Side by side, then inline at the toggle.
    old = card.find_element(By.CSS_SELECTOR, ".val.old").rect
    new = card.find_element(By.CSS_SELECTOR, ".val.new").rect
    check(abs(old["y"] - new["y"]) < 2 and new["x"] > old["x"] + old["width"] - 2, f"side by side: old {old}, new {new}")
    driver.find_element(By.ID, "inline").click()
    old = card.find_element(By.CSS_SELECTOR, ".val.old").rect
    new = card.find_element(By.CSS_SELECTOR, ".val.new").rect
    check(abs(old["x"] - new["x"]) < 2 and new["y"] >= old["y"] + old["height"] - 2, f"inline: old {old}, new {new}")

    # A #key link, followed on load and again after a reload.
    load(driver, "people.html", "#id%3D8")
    check("target" in driver.find_element(By.ID, "id=8").get_attribute("class"), "#id=8 marks its card")
    driver.refresh()
    WebDriverWait(driver, 20).until(lambda d: d.execute_script("return document.documentElement.hasAttribute('data-ready')"))
    check("target" in driver.find_element(By.ID, "id=8").get_attribute("class"), "#id=8 after a reload")
    # A link hidden by the filters brings its card back.
    load(driver, "people.html")
    driver.find_element(By.ID, "kind-i").click()
    check(not driver.find_elements(By.ID, "id=8"), "the insert is filtered out")
    driver.execute_script("location.hash = '#id%3D8'")
    WebDriverWait(driver, 5).until(lambda d: d.find_elements(By.ID, "id=8"))
    check(driver.find_element(By.ID, "kind-i").is_selected(), "a link to a filtered change shows all kinds again")

    screenshot = os.path.join(DIR, "people.png")
    driver.save_screenshot(screenshot)
    check(os.path.getsize(screenshot) > 20_000, "the screenshot shows something")


def sections(driver):
    """Changes grouped by section, and the section filter."""
    load(driver, "sections.html")
    headings = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "main h2.group")]
    check(headings == ["A - L", "M - Z"], f"section headings: {headings}")
    check(len(cards(driver)) == 7, f"cards in all sections: {len(cards(driver))}")
    select = driver.find_element(By.ID, "section")
    for option in select.find_elements(By.TAG_NAME, "option"):
        if option.text == "M - Z":
            option.click()
    headings = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "main h2.group")]
    check(headings == ["M - Z"] and card_keys(driver) == ["id=5", "id=5"], f"section M - Z: {headings}, {card_keys(driver)}")
    check(driver.find_elements(By.CSS_SELECTOR, "tr.section-change")[0].get_attribute("data-op") == "u", "the section update")


class Counter(http.server.BaseHTTPRequestHandler):
    hits = []

    def do_GET(self):
        Counter.hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"x")

    def log_message(self, *args):
        pass


def network(driver):
    """No request leaves the page: none in Chromium's network log, and none at a server the
    page is then asked to reach (by fetch, an image, a style sheet, a background image)."""
    server = http.server.HTTPServer(("127.0.0.1", 0), Counter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    target = f"http://127.0.0.1:{server.server_port}/"
    load(driver, "people.html")
    driver.get_log("performance")
    load(driver, "people.html")
    requests = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            requests.append(message["params"]["request"]["url"])
    check(requests and all(r.startswith("file://") for r in requests), f"requests made by the report: {requests}")
    violations = driver.execute_async_script("""
        var done = arguments[arguments.length - 1], target = arguments[0], count = 0;
        document.addEventListener('securitypolicyviolation', function () { count++; });
        fetch(target + 'fetch').catch(function () {});
        var img = document.createElement('img'); img.src = target + 'img'; document.body.appendChild(img);
        var link = document.createElement('link'); link.rel = 'stylesheet'; link.href = target + 'css'; document.head.appendChild(link);
        var box = document.createElement('div'); box.style.backgroundImage = 'url(' + target + 'background)'; document.body.appendChild(box);
        setTimeout(function () { done(count); }, 1500);
    """, target)
    server.shutdown()
    check(Counter.hits == [], f"the server was reached: {Counter.hits}")
    check(violations >= 3, f"the policy reported {violations} blocked requests")


def hostile(driver):
    load(driver, "hostile.html")
    check(driver.execute_script("return window.__pwned") is None, "an injected script ran")
    check(driver.execute_script("return document.querySelectorAll('img, svg, iframe, object, embed, link').length") == 0,
          "an element came from the data")
    check(driver.execute_script("return document.scripts.length") == 3, "scripts other than the report's")
    hrefs = driver.execute_script("return Array.from(document.querySelectorAll('[href]')).map(function (a) { return a.getAttribute('href'); })")
    check(all(h.startswith("#") for h in hrefs), f"links that leave the page: {hrefs}")
    text = driver.find_element(By.TAG_NAME, "body").text
    for payload in ["<script>window.__pwned=1</script>", "</script><script>window.__pwned=2</script>",
                    '\\"><img src=x onerror=\\"window.__pwned=3\\">', "javascript:window.__pwned=4"]:
        check(payload in text, f"not shown as text: {payload}")
    check("</script><script>window.__pwned=2</script>" in driver.title, f"title: {driver.title}")
    # Clicked from the page's own script: a click redraws the cards, which would leave an
    # element found before it stale.
    for n in range(len(driver.find_elements(By.CSS_SELECTOR, "a.key"))):
        driver.execute_script("var a = document.querySelectorAll('a.key')[arguments[0]]; if (a) a.click();", n)
    check(driver.execute_script("return window.__pwned") is None, "a key link ran a script")
    check(driver.execute_script("return location.protocol") == "file:", "a key link left the page")


def pages(driver):
    with open(os.path.join(DIR, "many.json")) as f:
        changeset = json.load(f)
    total = len(changeset["changes"])
    load(driver, "many.html")
    check(len(cards(driver)) == 100, f"first page: {len(cards(driver))} cards")
    check(driver.find_element(By.ID, "status").text.startswith(f"showing 1–100 of {total}"), driver.find_element(By.ID, "status").text)
    buttons = {b.text: b for b in driver.find_elements(By.CSS_SELECTOR, "nav.pager button")}
    buttons["next ›"].click()
    check(cards(driver)[0].get_attribute("data-index") == "100", "the second page starts at the 101st change")
    driver.find_elements(By.CSS_SELECTOR, "nav.pager button")[3].click()
    check(len(cards(driver)) == total - 200, f"last page: {len(cards(driver))} cards")
    # A link to a change on another page opens that page.
    anchor = driver.execute_script("return document.querySelectorAll('article.card')[5].id")
    load(driver, "many.html")
    driver.execute_script("location.hash = '#' + encodeURIComponent(arguments[0])", anchor)
    WebDriverWait(driver, 5).until(lambda d: d.find_elements(By.ID, anchor))
    check("target" in driver.find_element(By.ID, anchor).get_attribute("class"), f"#{anchor} on its page")


driver = browser()
try:
    for part in (people, sections, network, hostile, pages):
        try:
            part(driver)
        except Exception as error:  # a failed step is reported, and the next one runs
            check(False, f"{part.__name__}: {type(error).__name__}: {error}")
finally:
    driver.quit()
print(f"{len(failures)} failed" if failures else "ok")
sys.exit(1 if failures else 0)
