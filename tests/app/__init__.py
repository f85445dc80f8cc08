"""The Streamlit pages and the state behind them, driven by AppTest (no browser)."""
