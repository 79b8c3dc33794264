"""A stand-in for the web browser in tests (`BROWSER="python headless_browser.py %s"`): fetches the URL and
follows its redirects, as a browser whose user approves at once would."""

import sys

import httpx2

with httpx2.Client(follow_redirects=True, timeout=30) as client:
    response = client.get(sys.argv[1])
sys.exit(0 if response.status_code == 200 else 1)
