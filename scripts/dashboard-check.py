#!/usr/bin/env python3
"""The live dashboard in a real browser: headless Chromium driven by
Selenium against a running `warmer serve` and its workers. Run by
DashboardBrowserTests (docs/dashboard.md).

    dashboard-check.py SERVER_URL QUEUE ADMIN_TOKEN SCREENSHOT_DIR
        --urls FILE --batch NAME --slow-urls FILE --slow-batch NAME
        [--read-token TOKEN] [--expect-failed N]
    dashboard-check.py --check-browser     # only: are Chromium, its driver and Selenium here?

Steps, each ended by a screenshot (PNG, numbered) in SCREENSHOT_DIR:
  1. loads SERVER_URL/?queue=QUEUE, answers the token prompt with the admin
     token, and waits for the live summary stream;
  2. POSTs batch NAME (the URLs of --urls, one a line) through the API and
     waits for its row's progress bar to reach 100 % and for the throughput
     chart's data to count its jobs;
  3. opens the batch's page: its event tail ends with batchCompleted, and
     it lists --expect-failed failed jobs;
  4. POSTs batch --slow-batch (URLs that take long) and cancels it from its
     row (Cancel, then Confirm in the modal): the row says cancelled;
  5. the dead-letters view lists at least --expect-failed entries; the
     workers view lists a worker;
  6. with --read-token, an admin action (pause) answers "needs an admin token".
Prints `ok - STEP` per step. Exits 1 with `FAIL: what` (and a last
screenshot) on the first failure, 77 with `SKIPPED: why` when Chromium,
its driver or Selenium is missing.
"""
import argparse
import json
import os
import shutil
import sys
import time
import urllib.error
import urllib.request

SKIPPED = 77


def skip(reason):
    print(f"SKIPPED: {reason}", flush=True)
    sys.exit(SKIPPED)


try:
    from selenium import __version__ as selenium_version
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    skip("the selenium Python package is missing (scripts/test-python-packages.sh installs it)")


class Failure(Exception):
    pass


class Check:
    def __init__(self, args):
        self.args = args
        self.server = args.server.rstrip("/")
        self.shots = 0
        self.driver = None

    # --- the browser ---------------------------------------------------------

    def start_browser(self):
        chromium, driver = browser_binaries(self.args)
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for argument in ["--headless=new", "--window-size=1400,900", "--disable-dev-shm-usage",
                         "--disable-gpu", "--no-first-run", "--disable-extensions"]:
            options.add_argument(argument)
        if os.geteuid() == 0:
            options.add_argument("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        try:
            self.driver = webdriver.Chrome(service=Service(driver), options=options)
        except WebDriverException as error:
            raise Failure(f"could not start headless Chromium ({chromium}, {driver}): {error.msg}")
        self.driver.set_page_load_timeout(60)

    def screenshot(self, name, focus=None):
        """Saves the window as NN-name.png, scrolled to show `focus` (a CSS selector) if given."""
        if focus and self.find(focus):
            self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", self.find(focus))
        self.shots += 1
        path = os.path.join(self.args.screenshots, f"{self.shots:02d}-{name}.png")
        self.driver.save_screenshot(path)
        return path

    def wait(self, condition, message, timeout=60):
        """Waits until condition(driver) is truthy and returns it; Failure after timeout."""
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.25,
                                 ignored_exceptions=(StaleElementReferenceException, AttributeError)).until(
                lambda driver: condition(driver))
        except TimeoutException:
            raise Failure(f"{message} (waited {timeout} s)")

    def find(self, selector):
        found = self.driver.find_elements(By.CSS_SELECTOR, selector)
        return found[0] if found else None

    def attribute(self, selector, name):
        element = self.find(selector)
        return element.get_attribute(name) if element else None

    def click(self, selector, message):
        element = self.wait(lambda d: (e := self.find(selector)) and e.is_displayed() and e.is_enabled() and e,
                            f"{message}: no visible {selector}")
        element.click()

    def dialog_open(self, testid):
        return self.driver.execute_script(
            "const d = document.querySelector(arguments[0]); return !!(d && d.open);", f'[data-testid="{testid}"]')

    # --- the API ---------------------------------------------------------------

    def post_batch(self, name, urls):
        body = json.dumps({"v": 1, "batch": name, "urls": urls}).encode()
        request = urllib.request.Request(
            f"{self.server}/v1/queues/{self.args.queue}/batches", data=body, method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.args.admin_token}"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                answer = json.load(response)
                status = response.status
        except urllib.error.HTTPError as error:
            raise Failure(f"POST batch {name} answered {error.code}: {error.read().decode(errors='replace')}")
        if status != 201 or answer.get("batch") != name:
            raise Failure(f"POST batch {name} answered {status}: {answer}")
        return answer

    # --- the steps -------------------------------------------------------------

    def load(self):
        self.driver.get(f"{self.server}/?queue={self.args.queue}#/")
        self.wait(lambda d: self.dialog_open("token-dialog") or self.attribute("#connection", "data-state") == "open",
                  "the page neither asked for a token nor opened its summary stream")
        if self.dialog_open("token-dialog"):
            self.screenshot("token-prompt")
            self.enter_token(self.args.admin_token)
        self.wait(lambda d: self.attribute("#connection", "data-state") == "open",
                  f"the summary stream did not open (connection says {self.attribute('#connection', 'data-state')})")
        self.wait(lambda d: int(self.attribute('[data-testid="throughput-chart"]', "data-updates") or 0) >= 1,
                  "no summary event reached the overview")
        queue_name = self.find('[data-testid="queue-name"]').text
        if queue_name != self.args.queue:
            raise Failure(f"the overview shows queue {queue_name!r}, not {self.args.queue!r}")
        print("ok - the page loads, takes the token and follows the summary stream", flush=True)
        self.screenshot("loaded")

    def enter_token(self, token):
        field = self.wait(lambda d: (e := self.find('[data-testid="token-input"]')) and e.is_displayed() and e,
                          "the token prompt has no visible input")
        field.clear()
        field.send_keys(token)
        self.click('[data-testid="token-submit"]', "the token prompt")
        self.wait(lambda d: not self.dialog_open("token-dialog"), "the token prompt did not close")

    def row(self, batch):
        return f'[data-testid="batch-row"][data-batch="{batch}"]'

    def first_batch(self, urls):
        chart = '[data-testid="throughput-chart"]'
        jobs_before = int(self.attribute(chart, "data-total-jobs") or 0)
        self.post_batch(self.args.batch, urls)
        self.wait(lambda d: self.find(self.row(self.args.batch)), f"batch {self.args.batch} has no row", timeout=30)
        self.screenshot("first-batch-listed", self.row(self.args.batch))
        progress = self.row(self.args.batch) + ' [data-testid="progress"]'
        self.wait(lambda d: self.attribute(progress, "data-percent") == "100",
                  f"batch {self.args.batch}'s progress bar did not reach 100 % "
                  f"(it says {self.attribute(progress, 'data-percent')})", timeout=240)
        status = self.find(self.row(self.args.batch)).get_attribute("data-status")
        if status != "finished":
            raise Failure(f"batch {self.args.batch} at 100 % says {status!r}, not finished")
        print(f"ok - batch {self.args.batch}'s progress bar reached 100 %", flush=True)
        self.screenshot("first-batch-complete", self.row(self.args.batch))
        expected = jobs_before + len(urls)
        self.wait(lambda d: int(self.attribute(chart, "data-total-jobs") or 0) >= expected,
                  f"the throughput chart counts {self.attribute(chart, 'data-total-jobs')} jobs, "
                  f"not the {expected} expected after the batch", timeout=60)
        print(f"ok - the throughput chart moved: {jobs_before} -> {self.attribute(chart, 'data-total-jobs')} jobs "
              f"in {self.attribute(chart, 'data-points')} points", flush=True)
        self.screenshot("throughput", chart)

    def batch_page(self):
        link = self.row(self.args.batch) + ' [data-testid="batch-link"]'
        self.click(link, f"batch {self.args.batch}'s row")
        self.wait(lambda d: self.attribute("#view", "data-view") == "batch", "the batch page did not open")
        tail = '[data-testid="event-tail"]'
        self.wait(lambda d: self.find(tail + ' li[data-type="batchCompleted"]'),
                  f"the event tail never showed batchCompleted ({self.attribute('[data-testid=event-count]', 'data-count')} events)")
        lines = len(self.driver.find_elements(By.CSS_SELECTOR, tail + " li"))
        count = int(self.attribute('[data-testid="event-count"]', "data-count") or 0)
        if lines == 0 or lines > 200 or count < len(self.urls):
            raise Failure(f"the event tail has {lines} lines for {count} events")
        self.wait(lambda d: len(self.driver.find_elements(By.CSS_SELECTOR, '[data-testid="failure-row"]')) >= self.args.expect_failed,
                  f"the batch page lists fewer than {self.args.expect_failed} failed jobs")
        self.wait(lambda d: self.find('[data-testid="batch-status"]').text == "finished", "the batch page does not say finished")
        print(f"ok - the batch page tails {count} events, batchCompleted last, and lists the failed jobs", flush=True)
        self.screenshot("batch-page")
        self.click('[data-testid="nav-overview"]', "the navigation")
        self.wait(lambda d: self.attribute("#view", "data-view") == "overview", "the overview did not come back")

    def cancel_slow_batch(self, urls):
        self.post_batch(self.args.slow_batch, urls)
        row = self.row(self.args.slow_batch)
        self.wait(lambda d: self.find(row) and self.find(row).get_attribute("data-status") == "running",
                  f"batch {self.args.slow_batch} has no running row", timeout=30)
        self.screenshot("slow-batch-running", row)
        self.click(row + ' [data-testid="cancel-batch"]', f"batch {self.args.slow_batch}'s row")
        self.wait(lambda d: self.dialog_open("confirm-dialog"), "Cancel did not open the confirmation modal")
        self.screenshot("cancel-confirmation")
        self.click('[data-testid="confirm"]', "the confirmation modal")
        self.wait(lambda d: self.attribute('[data-testid="notice"]', "data-kind") in ("ok", "error"),
                  "the cancellation reported nothing")
        notice = self.find('[data-testid="notice"] .notice-text').text
        if self.attribute('[data-testid="notice"]', "data-kind") != "ok":
            raise Failure(f"the cancellation failed: {notice}")
        self.wait(lambda d: self.find(row).get_attribute("data-status") == "cancelled",
                  f"batch {self.args.slow_batch}'s row does not say cancelled", timeout=30)
        print(f"ok - batch {self.args.slow_batch} cancelled from its row ({notice})", flush=True)
        self.screenshot("slow-batch-cancelled", row)

    def other_views(self):
        self.click('[data-testid="nav-dead"]', "the navigation")
        self.wait(lambda d: self.attribute('[data-testid="dead-count"]', "data-loaded") == "true",
                  "the dead-letters view did not load")
        self.wait(lambda d: len(self.driver.find_elements(By.CSS_SELECTOR, '[data-testid="dead-row"]')) >= self.args.expect_failed,
                  f"the dead-letters view lists fewer than {self.args.expect_failed} entries")
        print(f"ok - the dead-letters view lists {self.attribute('[data-testid=dead-count]', 'data-count')} entries", flush=True)
        self.screenshot("dead-letters")
        self.click('[data-testid="nav-workers"]', "the navigation")
        self.wait(lambda d: self.find('[data-testid="worker-row"]'), "the workers view lists no worker")
        print("ok - the workers view lists the worker", flush=True)
        self.screenshot("workers")

    def read_token_refused(self):
        self.click('[data-testid="token-button"]', "the header")
        self.wait(lambda d: self.dialog_open("token-dialog"), "the token button did not open the prompt")
        self.enter_token(self.args.read_token)
        self.click('[data-testid="nav-overview"]', "the navigation")
        self.click('[data-testid="pause-queue"]', "the overview")
        self.wait(lambda d: self.dialog_open("confirm-dialog"), "Pause did not open the confirmation modal")
        self.click('[data-testid="confirm"]', "the confirmation modal")
        self.wait(lambda d: "needs an admin token" in (self.find('[data-testid="notice"]').text or ""),
                  f"a read token's pause did not say it needs an admin token: {self.find('[data-testid=notice]').text!r}")
        print("ok - a read token's admin action says it needs an admin token", flush=True)
        self.screenshot("read-token-refused")

    def console_errors(self):
        """JavaScript errors the page logged (refused requests are expected: 401, 403)."""
        try:
            entries = self.driver.get_log("browser")
        except WebDriverException:
            return []
        return [entry["message"] for entry in entries
                if entry.get("level") == "SEVERE" and "Failed to load resource" not in entry["message"]]

    def run(self):
        self.urls = read_lines(self.args.urls)
        slow = read_lines(self.args.slow_urls)
        os.makedirs(self.args.screenshots, exist_ok=True)
        self.start_browser()
        try:
            self.load()
            self.first_batch(self.urls)
            self.batch_page()
            self.cancel_slow_batch(slow)
            self.other_views()
            if self.args.read_token:
                self.read_token_refused()
            errors = self.console_errors()
            if errors:
                raise Failure("the page logged errors:\n" + "\n".join(errors))
        except Failure as failure:
            try:
                shot = self.screenshot("failure")
            except WebDriverException:
                shot = "(no screenshot)"
            for message in self.console_errors():
                print(f"console: {message}", flush=True)
            print(f"FAIL: {failure} (screenshot {shot})", flush=True)
            return 1
        finally:
            self.driver.quit()
        print(f"PASS ({self.shots} screenshots in {self.args.screenshots})", flush=True)
        return 0


def browser_binaries(args):
    """Chromium and chromedriver, or exits 77 (SKIPPED) naming what is missing."""
    chromium = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    driver = args.chromedriver or shutil.which("chromedriver")
    if not chromium or not os.access(chromium, os.X_OK):
        skip("chromium is not installed (apt package chromium; scripts/bootstrap.sh installs it)")
    if not driver or not os.access(driver, os.X_OK):
        skip("chromedriver is not installed (apt package chromium-driver; scripts/bootstrap.sh installs it)")
    return chromium, driver


def read_lines(path):
    with open(path) as file:
        lines = [line.strip() for line in file if line.strip()]
    if not lines:
        raise SystemExit(f"FAIL: {path} lists no URL")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check-browser", action="store_true", help="only check that the browser can be driven")
    parser.add_argument("server", nargs="?")
    parser.add_argument("queue", nargs="?")
    parser.add_argument("admin_token", nargs="?")
    parser.add_argument("screenshots", nargs="?")
    parser.add_argument("--urls")
    parser.add_argument("--batch")
    parser.add_argument("--slow-urls")
    parser.add_argument("--slow-batch")
    parser.add_argument("--read-token")
    parser.add_argument("--expect-failed", type=int, default=0)
    parser.add_argument("--chromium", help="the browser binary (default: chromium on PATH)")
    parser.add_argument("--chromedriver", help="the driver binary (default: chromedriver on PATH)")
    args = parser.parse_args()
    if args.check_browser:
        chromium, driver = browser_binaries(args)
        print(f"browser: {chromium}, {driver}, selenium {selenium_version}")
        return 0
    missing = [name for name in ["server", "queue", "admin_token", "screenshots", "urls", "batch", "slow_urls", "slow_batch"]
               if not getattr(args, name)]
    if missing:
        parser.error("missing: " + ", ".join(missing))
    try:
        return Check(args).run()
    except Failure as failure:
        print(f"FAIL: {failure}", flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
