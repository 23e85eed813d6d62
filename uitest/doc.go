// Package uitest drives miniplane's browser view (package ui) in a real
// headless Chromium with chromedp: it starts the real `miniplane serve`,
// changes the cluster with the real kubectl, and checks what the page
// shows. It is a module of its own so that the main module never imports
// chromedp. The tests skip, saying how to install it, where Chromium is
// missing.
package uitest
