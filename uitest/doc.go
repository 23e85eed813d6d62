// Package uitest drives miniplane's browser views (package ui) in a real
// headless Chromium with chromedp: the live view against the real
// `miniplane serve` changed with the real kubectl, and the simulator's trace
// view. It is a module of its own so that the main module never imports
// chromedp. The tests skip, saying how to install it, where Chromium is
// missing.
package uitest
