package workqueue_test

import "github.com/miniplane/miniplane/controllers/workqueue"

// queue is the queue type most tests use.
type queue = *workqueue.Queue[string]
