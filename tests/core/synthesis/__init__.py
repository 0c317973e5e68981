"""Tests of the synthesis package."""
