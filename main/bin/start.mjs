#!/usr/bin/env node
// `npm start [-- FOLDER]`: the same launcher as the installed `lakerec-workbench` command.
import './lakerec-workbench.mjs';
