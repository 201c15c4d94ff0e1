#!/usr/bin/perl
# Reads a TAP file with Perl's TAP::Parser (Debian's perl) and prints what the
# parser understood, one "key value" line each: the TAP version, the plan,
# tests run, passed (TAP's sense: ok, or not ok with TODO), failed, actual
# passes, skipped, todo, todo that passed, parse errors, and for each TODO and
# SKIP test its explanation (tools/tests/test_tap.py compares them with
# results.json).
use strict;
use warnings;
use TAP::Parser;

my $file = shift or die "usage: tap_counts.pl FILE\n";
my $parser = TAP::Parser->new({source => $file});
my ($actual_ok, $yaml) = (0, 0);
my (@todo, @skip);
while (my $result = $parser->next) {
    $yaml++ if $result->is_yaml;
    next unless $result->is_test;
    $actual_ok++ if $result->is_actual_ok;
    push @todo, $result->explanation if $result->has_todo;
    push @skip, $result->explanation if $result->has_skip;
}
print "version ", $parser->version, "\n";
print "plan ", ($parser->plan // ""), "\n";
print "tests_run ", $parser->tests_run, "\n";
print "passed ", scalar($parser->passed), "\n";
print "failed ", scalar($parser->failed), "\n";
print "actual_passed ", $actual_ok, "\n";
print "skipped ", scalar($parser->skipped), "\n";
print "todo ", scalar($parser->todo), "\n";
print "todo_passed ", scalar($parser->todo_passed), "\n";
print "yaml_blocks ", $yaml, "\n";
print "parse_error $_\n" for $parser->parse_errors;
print "todo_explanation $_\n" for @todo;
print "skip_explanation $_\n" for @skip;
