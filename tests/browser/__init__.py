"""The app in a real browser (Playwright driving headless Chromium)."""
