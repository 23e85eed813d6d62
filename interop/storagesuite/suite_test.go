package storagesuite

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/features"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
	"k8s.io/apiserver/pkg/storage/value"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// suiteTest is one test of k8s.io/apiserver/pkg/storage/testing, driven as
// k8s.io/apiserver/pkg/storage/etcd3's store_test.go and watcher_test.go
// drive it against etcd3's store. skip, when set, says why the test does
// not apply to miniplane's store (docs/storage-suite.md lists the same).
type suiteTest struct {
	name string
	run  func(t *testing.T, b backend)
	skip string
}

// plain runs a test that needs the storage only.
func plain(f func(context.Context, *testing.T, *Storage)) func(*testing.T, backend) {
	return func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		f(ctx, t, e.s)
	}
}

// gate runs f with a feature gate set.
func gate(f featuregate.Feature, on bool, run func(*testing.T, backend)) func(*testing.T, backend) {
	return func(t *testing.T, b backend) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, f, on)
		run(t, b)
	}
}

// failingCodec and failingTransformer fail on read when told to: etcd3's
// testCodec and testTransformer.
type failingCodec struct {
	runtime.Codec
	fail atomic.Bool
}

func (c *failingCodec) Decode(data []byte, gvk *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if c.fail.Load() {
		return nil, nil, errors.New("synthetic error")
	}
	return c.Codec.Decode(data, gvk, into)
}

type failingTransformer struct {
	value.Transformer
	fail atomic.Bool
}

func (f *failingTransformer) TransformFromStorage(ctx context.Context, data []byte, dataCtx value.Context) ([]byte, bool, error) {
	if f.fail.Load() {
		return nil, false, errors.New("synthetic error")
	}
	return f.Transformer.TransformFromStorage(ctx, data, dataCtx)
}

const (
	noBookmarks = "optional, and run against kube-apiserver's watch cache only: etcd3's store sends no bookmarks " +
		"to AllowWatchBookmarks watches (WatchDispatchBookmarkEvents runs with expectedWatchBookmarks=false), nor does this adapter"
	noTTL         = "TTLs: miniplane's store has no leases (kube-apiserver uses TTLs only for Events)"
	noAggregation = "corrupt-object error aggregation is etcd3's wrapper for AllowUnsafeMalformedObjectDeletion " +
		"(NewStoreWithUnsafeCorruptObjectDeletion), not part of storage.Interface"
)

var suite = []suiteTest{
	{name: "Create", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestCreate(ctx, t, e.s, e.validate)
	}},
	{name: "CreateWithTTL", skip: noTTL},
	{name: "CreateWithKeyExist", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestCreateWithKeyExist(ctx, t, s)
	})},
	{name: "Get", run: plain(func(ctx context.Context, t *testing.T, s *Storage) { storagetesting.RunTestGet(ctx, t, s) })},
	{name: "UnconditionalDelete", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestUnconditionalDelete(ctx, t, s)
	})},
	{name: "ConditionalDelete", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestConditionalDelete(ctx, t, s)
	})},
	{name: "DeleteWithSuggestion", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestDeleteWithSuggestion(ctx, t, s)
	})},
	{name: "DeleteWithSuggestionAndConflict", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestDeleteWithSuggestionAndConflict(ctx, t, s)
	})},
	{name: "DeleteWithSuggestionOfDeletedObject", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestDeleteWithSuggestionOfDeletedObject(ctx, t, s)
	})},
	{name: "ValidateDeletionWithSuggestion", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestValidateDeletionWithSuggestion(ctx, t, s)
	})},
	{name: "ValidateDeletionWithOnlySuggestionValid", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestValidateDeletionWithOnlySuggestionValid(ctx, t, s)
	})},
	{name: "DeleteWithConflict", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestDeleteWithConflict(ctx, t, s)
	})},
	{name: "DeleteWithConflictAndMissingExpectedTransformOrDecodeError", run: gate(features.AllowUnsafeMalformedObjectDeletion, true, func(t *testing.T, b backend) {
		codec := &failingCodec{Codec: apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion)}
		ctx, e := setup(t, b, codec, nil)
		storagetesting.RunTestDeleteWithConflictAndMissingExpectedTransformOrDecodeError(ctx, t, e.s, codec.fail.Store)
	})},
	{name: "DeleteWithConflictAndExpectedTransformError", run: gate(features.AllowUnsafeMalformedObjectDeletion, true, func(t *testing.T, b backend) {
		tr := &failingTransformer{Transformer: storagetesting.NewPrefixTransformer([]byte(transformerPrefix), false)}
		ctx, e := setup(t, b, nil, tr)
		storagetesting.RunTestDeleteExpectedTransformOrDecodeError(ctx, t, e.s, tr.fail.Store)
	})},
	{name: "DeleteWithConflictAndExpectedDecodeError", run: gate(features.AllowUnsafeMalformedObjectDeletion, true, func(t *testing.T, b backend) {
		codec := &failingCodec{Codec: apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion)}
		ctx, e := setup(t, b, codec, nil)
		storagetesting.RunTestDeleteExpectedTransformOrDecodeError(ctx, t, e.s, codec.fail.Store)
	})},
	{name: "DeleteWithSuggestionAndMissingExpectedTransformOrDecodeFailure", run: gate(features.AllowUnsafeMalformedObjectDeletion, true, plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestDeleteWithSuggestionAndMissingExpectedTransformOrDecodeError(ctx, t, s)
	}))},
	{name: "PreconditionalDeleteWithSuggestion", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestPreconditionalDeleteWithSuggestion(ctx, t, s)
	})},
	{name: "PreconditionalDeleteWithOnlySuggestionPass", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestPreconditionalDeleteWithOnlySuggestionPass(ctx, t, s)
	})},
	{name: "ListPaging", run: plain(func(ctx context.Context, t *testing.T, s *Storage) { storagetesting.RunTestListPaging(ctx, t, s) })},
	{name: "GetListNonRecursive", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestGetListNonRecursive(ctx, t, e.increaseRV, e.s)
	}},
	{name: "GetListRecursivePrefix", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestGetListRecursivePrefix(ctx, t, s)
	})},
	{name: "KeySchema", run: plain(func(ctx context.Context, t *testing.T, s *Storage) { storagetesting.RunTestKeySchema(ctx, t, s) })},
	{name: "GetListWithErrorAggregation", skip: noAggregation},
	{name: "GetListWithoutErrorAggregation", run: gate(features.AllowUnsafeMalformedObjectDeletion, false, func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestGetListWithoutErrorAggregation(ctx, t, withTransformerOverride{e.s}, errors.New("bits flipped"))
	})},
	{name: "GuaranteedUpdate", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestGuaranteedUpdate(ctx, t, withPrefixTransformer{e.s}, e.validate)
	}},
	{name: "GuaranteedUpdateWithTTL", skip: noTTL},
	{name: "GuaranteedUpdateChecksStoredData", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestGuaranteedUpdateChecksStoredData(ctx, t, withPrefixTransformer{s})
	})},
	{name: "GuaranteedUpdateWithConflict", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestGuaranteedUpdateWithConflict(ctx, t, s)
	})},
	{name: "GuaranteedUpdateWithSuggestionAndConflict", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestGuaranteedUpdateWithSuggestionAndConflict(ctx, t, s)
	})},
	{name: "TransformationFailure", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestTransformationFailure(ctx, t, withPrefixTransformer{s})
	})},
	{name: "List", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestList(ctx, t, e.s, e.compact, false, nil)
	}},
	{name: "ConsistentList", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestConsistentList(ctx, t, e.s, e.increaseRV, false, true, false)
	}},
	{name: "CompactRevision", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestCompactRevision(ctx, t, e.s, e.increaseRV, e.compact)
	}},
	{name: "ListContinuation", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestListContinuation(ctx, t, e.s, e.calls)
	}},
	{name: "ListPaginationRareObject", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestListPaginationRareObject(ctx, t, e.s, e.calls)
	}},
	{name: "ListContinuationWithFilter", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestListContinuationWithFilter(ctx, t, e.s, e.calls)
	}},
	{name: "NamespaceScopedList", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestNamespaceScopedList(ctx, t, s)
	})},
	{name: "ListInconsistentContinuation", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestListInconsistentContinuation(ctx, t, e.s, e.compact)
	}},
	{name: "ListResourceVersionMatch", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestListResourceVersionMatch(ctx, t, withPrefixTransformer{s})
	})},
	{name: "Stats", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestStats(ctx, t, e.s, e.s.codec, e.s.Transformer(), false)
	}},

	// watcher_tests.go
	{name: "Watch", run: plain(func(ctx context.Context, t *testing.T, s *Storage) { storagetesting.RunTestWatch(ctx, t, s) })},
	{name: "ClusterScopedWatch", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestClusterScopedWatch(ctx, t, s)
	})},
	{name: "NamespaceScopedWatch", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestNamespaceScopedWatch(ctx, t, s)
	})},
	{name: "DeleteTriggerWatch", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestDeleteTriggerWatch(ctx, t, s)
	})},
	{name: "WatchFromZero", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunTestWatchFromZero(ctx, t, e.s, e.compact)
	}},
	{name: "WatchFromNonZero", run: plain(func(ctx context.Context, t *testing.T, s *Storage) { storagetesting.RunTestWatchFromNonZero(ctx, t, s) })},
	{name: "DelayedWatchDelivery", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestDelayedWatchDelivery(ctx, t, s)
	})},
	{name: "WatchError", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestWatchError(ctx, t, withPrefixTransformer{s})
	})},
	{name: "WatchContextCancel", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestWatchContextCancel(ctx, t, s)
	})},
	{name: "WatcherTimeout", run: plain(func(ctx context.Context, t *testing.T, s *Storage) { storagetesting.RunTestWatcherTimeout(ctx, t, s) })},
	{name: "WatchDeleteEventObjectHaveLatestRV", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestWatchDeleteEventObjectHaveLatestRV(ctx, t, s)
	})},
	{name: "WatchInitializationSignal", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestWatchInitializationSignal(ctx, t, s)
	})},
	{name: "ProgressNotify", run: func(t *testing.T, b backend) {
		ctx, e := setup(t, b, nil, nil)
		storagetesting.RunOptionalTestProgressNotify(ctx, t, e.s, e.increaseRV)
	}},
	{name: "WatchWithUnsafeDelete", skip: noAggregation},
	{name: "WatchDispatchBookmarkEvents", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunTestWatchDispatchBookmarkEvents(ctx, t, s, false)
	})},
	{name: "OptionalWatchBookmarksWithCorrectResourceVersion", skip: noBookmarks},
	{name: "SendInitialEventsBackwardCompatibility", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunSendInitialEventsBackwardCompatibility(ctx, t, s)
	})},
	{name: "WatchSemantics", run: func(t *testing.T, b backend) {
		// It watches from resourceVersion 1: the store must be new.
		ctx, e := setupOn(t, b, true, nil, nil)
		storagetesting.RunWatchSemantics(ctx, t, e.s)
	}},
	{name: "WatchSemanticInitialEventsExtended", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunWatchSemanticInitialEventsExtended(ctx, t, s)
	})},
	{name: "WatchListMatchSingle", run: plain(func(ctx context.Context, t *testing.T, s *Storage) { storagetesting.RunWatchListMatchSingle(ctx, t, s) })},
	{name: "WatchErrorIsBlockingFurtherEvents", run: plain(func(ctx context.Context, t *testing.T, s *Storage) {
		storagetesting.RunWatchErrorIsBlockingFurtherEvents(ctx, t, withPrefixTransformer{s})
	})},
}

// TestSuite runs every test of the suite on each backend.
func TestSuite(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, tc := range suite {
				t.Run(tc.name, func(t *testing.T) {
					if tc.skip != "" {
						t.Skip(tc.skip)
					}
					tc.run(t, b)
				})
			}
		})
	}
}
