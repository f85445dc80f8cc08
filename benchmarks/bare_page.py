"""The floor of the app benchmark: a Streamlit page with one title and nothing else
(``benchmarks.app`` times it as it times the app's pages, on this machine, in the same run)."""

import streamlit as st

st.title("A bare Streamlit page")
