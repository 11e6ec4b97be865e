#!/usr/bin/env python3
"""The dashboard's Content-Security-Policy in a real browser: headless
Chromium (the setup of scripts/dashboard-check.py) against a running
`warmer serve`. Run by DashboardSecurityPolicyTests (docs/dashboard.md).

    dashboard-frame-check.py SERVER_URL

Steps:
  1. loads SERVER_URL/ on its own: the page runs (its scripts draw the
     token prompt or the header) and Chromium reports no Content-Security-
     Policy violation;
  2. loads a page of another origin (served by this script on a loopback
     port of its own) that frames SERVER_URL/ and, as a control,
     SERVER_URL/healthz: the control loads, the dashboard's frame is refused
     (frame-ancestors 'none') and never shows the dashboard.
Prints `ok - STEP` per step. Exits 1 with `FAIL: what`, 77 with
`SKIPPED: why` when Chromium, its driver or Selenium is missing.
"""
import argparse
import http.server
import importlib.util
import os
import sys
import threading
import urllib.parse

_spec = importlib.util.spec_from_file_location("dashboard_check", os.path.join(os.path.dirname(__file__), "dashboard-check.py"))
dashboard_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dashboard_check)
Failure = dashboard_check.Failure


class FrameCheck(dashboard_check.Check):
    def csp_messages(self):
        try:
            entries = self.driver.get_log("browser")
        except dashboard_check.WebDriverException:
            return []
        return [entry["message"] for entry in entries if "Content Security Policy" in entry["message"]
                or "frame-ancestors" in entry["message"] or "X-Frame-Options" in entry["message"]]

    def own_page(self):
        self.driver.get(self.server + "/")
        self.wait(lambda d: d.execute_script("return document.readyState") == "complete"
                  and d.execute_script("return document.querySelectorAll('[data-testid]').length") > 0,
                  "the dashboard's scripts did not run")
        violations = self.csp_messages()
        if violations:
            raise Failure("the dashboard breaks its own policy:\n" + "\n".join(violations))
        print("ok - the dashboard runs under its Content-Security-Policy", flush=True)

    def framed(self):
        # The framing page: another origin (a port of its own on loopback; a
        # data: page may not load loopback frames at all). Beside the
        # dashboard it frames /healthz, which sends no policy: the control
        # that framing works here at all.
        page = (f'<title>elsewhere</title><iframe id="control" src="{self.server}/healthz"></iframe>'
                f'<iframe id="f" src="{self.server}/" width="800" height="600"></iframe>').encode()

        class Page(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *arguments):
                pass

        elsewhere = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
        threading.Thread(target=elsewhere.serve_forever, daemon=True).start()
        try:
            self.driver.get(f"http://127.0.0.1:{elsewhere.server_address[1]}/")
            result = self.wait(self.frame_outcome, "the frames neither loaded nor were refused")
        finally:
            elsewhere.shutdown()
        if result == "shown":
            raise Failure("a page of another origin framed the dashboard")
        if result == "control refused":
            raise Failure("the control frame (/healthz) did not load either: framing is not tested here")
        print("ok - a page of another origin cannot frame the dashboard", flush=True)

    def frame_state(self, driver, name):
        """The title and address of frame `name`'s document."""
        driver.switch_to.frame(name)
        try:
            return driver.execute_script("return [document.title, String(location.href)]")
        finally:
            driver.switch_to.default_content()

    def frame_outcome(self, driver):
        _, control = self.frame_state(driver, "control")
        if control.startswith("chrome-error:"):
            return "control refused"
        if not control.startswith(self.server):
            return None
        title, address = self.frame_state(driver, "f")
        if title == "Warmer":
            return "shown"
        # (A refused frame holds Chromium's error page instead.)
        return "refused" if address.startswith("chrome-error:") else None

    def run(self):
        self.start_browser()
        try:
            self.own_page()
            self.framed()
        except Failure as failure:
            print(f"FAIL: {failure}", flush=True)
            return 1
        finally:
            self.driver.quit()
        print("PASS", flush=True)
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("server")
    parser.add_argument("--chromium")
    parser.add_argument("--chromedriver")
    args = parser.parse_args()
    args.screenshots = "/nonexistent"
    return FrameCheck(args).run()


if __name__ == "__main__":
    sys.exit(main())
