/**
 * The code samples of {@code README.md} and {@code docs/*.md}, compiled by the build so that they
 * cannot rot. Each sample is a region marked {@code // [START name]} ... {@code // [END name]}; the
 * page names it in a {@code <!-- sample: File.java#name -->} line just before its {@code java} block,
 * and {@code DocSamplesTest} checks that block and region are the same text.
 */
package dev.eosink.examples.docs;
