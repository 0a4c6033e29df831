#!/usr/bin/env bash
echo "ppa_plots: placeholder"
