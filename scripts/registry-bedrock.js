/*
 * registry-bedrock.js: Bedrock registries for gen-registries.js (filled in
 * after the Java tables).
 */
'use strict';
function build() { return { registries: [], versions: [] }; }
module.exports = { build };
